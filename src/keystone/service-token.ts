// The service's own Keystone token, obtained by a password login of the service user and
// renewed before it expires. Concurrent callers share one login.
import type { ServiceCredentials } from '../config.js';
import { callJson } from './http.js';

const RENEW_BEFORE_MS = 5 * 60 * 1000;

export class ServiceTokenError extends Error {}

export class ServiceToken {
  private token: { value: string; renewAt: number } | undefined;
  private pending: Promise<string> | undefined;

  constructor(
    private readonly authUrl: string,
    private readonly creds: ServiceCredentials,
    private readonly timeoutMs: number,
  ) {}

  /** A token valid for a while longer; logs in again when close to expiry or after invalidate(). */
  async get(): Promise<string> {
    const t = this.token;
    if (t && Date.now() < t.renewAt) return t.value;
    this.pending ??= this.login().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  /** This token as the OpenStack clients take one (renewed on demand, forgotten when refused). */
  source(): { token(): Promise<string>; invalidate(token: string): void } {
    return { token: () => this.get(), invalidate: (t) => this.invalidate(t) };
  }

  /** Forget the token (Keystone said it is no longer valid). */
  invalidate(value: string): void {
    if (this.token?.value === value) this.token = undefined;
  }

  private async login(): Promise<string> {
    const res = await callJson(`${this.authUrl}/auth/tokens?nocatalog`, {
      method: 'POST',
      timeoutMs: this.timeoutMs,
      body: {
        auth: {
          identity: {
            methods: ['password'],
            password: {
              user: { name: this.creds.username, domain: { name: this.creds.userDomainName }, password: this.creds.password },
            },
          },
          scope: { project: { name: this.creds.projectName, domain: { name: this.creds.projectDomainName } } },
        },
      },
    });
    const value = res.headers.get('x-subject-token');
    if (res.status !== 201 || !value) {
      throw new ServiceTokenError(`service login as ${this.creds.username} refused by Keystone (HTTP ${res.status})`);
    }
    const expiresAt = Date.parse((res.body as { token: { expires_at: string } }).token.expires_at);
    const lifetime = expiresAt - Date.now();
    // Renew 5 minutes before expiry, or after 80% of the lifetime for short-lived tokens.
    this.token = { value, renewAt: expiresAt - Math.min(RENEW_BEFORE_MS, lifetime / 5) };
    return value;
  }
}
