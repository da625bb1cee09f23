// Login with Keystone: user, password, user domain and project, or an application credential.
// The server logs in and keeps the token; this page never sees one.
import { useState } from 'preact/hooks';
import { portal, type PortalSession } from '../api';
import { Field, Notice } from '../ui/components';

export function LoginPage({ expired, onLogin }: { expired: boolean; onLogin: (s: PortalSession) => void }) {
  const [method, setMethod] = useState<'password' | 'application_credential'>('password');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  async function submit(e: Event) {
    e.preventDefault();
    const f = new FormData(e.target as HTMLFormElement);
    const v = (k: string) => String(f.get(k) ?? '').trim();
    setBusy(true);
    setError(undefined);
    try {
      const s = await portal.login(
        method === 'password'
          ? { method, username: v('username'), password: String(f.get('password') ?? ''), user_domain: v('user_domain') || 'Default', project: v('project'), project_domain: v('user_domain') || 'Default' }
          : { method, application_credential_id: v('appcred_id'), application_credential_secret: String(f.get('appcred_secret') ?? '') },
      );
      onLogin(s);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <main id="main" class="login">
      <h1>
        <span aria-hidden="true">⬡ </span>Magnum clusters
      </h1>
      {expired && <Notice kind="warn">Your session has ended. Log in again to return to the page you were on; unsent forms are kept.</Notice>}
      <form onSubmit={submit} aria-describedby={error ? 'login-error' : undefined}>
        <fieldset class="tabs">
          <legend>Log in with</legend>
          <label>
            <input type="radio" name="method" checked={method === 'password'} onChange={() => setMethod('password')} /> Password
          </label>
          <label>
            <input type="radio" name="method" checked={method === 'application_credential'} onChange={() => setMethod('application_credential')} /> Application credential
          </label>
        </fieldset>
        {method === 'password' ? (
          <>
            <Field id="username" label="User name">
              <input id="username" name="username" autocomplete="username" required />
            </Field>
            <Field id="password" label="Password">
              <input id="password" name="password" type="password" autocomplete="current-password" required />
            </Field>
            <Field id="user_domain" label="User domain">
              <input id="user_domain" name="user_domain" value="Default" autocomplete="off" />
            </Field>
            <Field id="project" label="Project" hint="Leave empty to open your first project; switch projects at any time.">
              <input id="project" name="project" autocomplete="off" aria-describedby="project-hint" />
            </Field>
          </>
        ) : (
          <>
            <Field id="appcred_id" label="Application credential ID">
              <input id="appcred_id" name="appcred_id" autocomplete="username" required />
            </Field>
            <Field id="appcred_secret" label="Secret">
              <input id="appcred_secret" name="appcred_secret" type="password" autocomplete="current-password" required />
            </Field>
          </>
        )}
        {error && (
          <p class="error" id="login-error" role="alert">
            <span aria-hidden="true">✕ </span>
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {busy ? 'Logging in…' : 'Log in'}
        </button>
      </form>
      <p class="hint">The password goes to Keystone through this service; the browser keeps only a session cookie it cannot read.</p>
    </main>
  );
}
