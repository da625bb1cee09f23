// Where a client's sessions come from (spec openstack-apis §1.1, §1.5):
// - the API acts with the caller's token and that token's catalog (tokenSessions);
// - a worker acts with the cluster's application credential: it logs in with id and secret
//   (POST /v3/auth/tokens, method application_credential, no scope), keeps the token, renews it
//   before it expires (using it to the end if Keystone is down meanwhile), and logs in again once
//   when a service answers 401 (AppCredentialAuth).
import { contextFromToken, type AuthContext, type CatalogEntry } from '../keystone/context.js';
import type { EndpointFilter } from './catalog.js';
import { OpenStackError } from './errors.js';
import { requestJson, sessionFor, type CallMetrics, type CallRecord, type Session, type SessionOptions, type TokenSource } from './http.js';
import type { RetryPolicy } from './retry.js';
import type { components } from '../../openapi/openstack/keystone.js';

type TokenResponse = components['schemas']['TokenResponse'];
type AuthRequest = components['schemas']['AppCredentialAuthRequest'];

/** Sessions by service type, whoever the caller is. */
export interface SessionSource {
  session(type: string, opts?: { globalRequestId?: string }): Promise<Session>;
}

/** The caller's token and its catalog (the API acting for a user). */
export function tokenSessions(catalog: CatalogEntry[], token: string, opts: SessionOptions): SessionSource {
  return {
    session: async (type, extra) => sessionFor(catalog, token, type, { ...opts, ...extra }),
  };
}

export interface AppCredentialAuthOptions extends EndpointFilter {
  /** Keystone's URL, with or without /v3. */
  authUrl: string;
  /** The application credential's id and secret. */
  id: string;
  secret: string;
  /** Per attempt, for the login and for the sessions handed out. */
  timeoutMs: number;
  retry?: RetryPolicy;
  log?: (call: CallRecord) => void;
  metrics?: CallMetrics;
  /** Renew this long before expiry (at most half the token's lifetime); default 5 minutes. */
  renewBeforeMs?: number;
  /** The clock, epoch ms (tests move it). */
  now?: () => number;
}

interface Held {
  token: string;
  context: AuthContext;
  /** Local time after which the token is renewed before use. */
  renewAt: number;
  /** Local time at which Keystone stops accepting it. */
  expiresAt: number;
}

const DEFAULT_RENEW_BEFORE_MS = 5 * 60_000;

export class AppCredentialAuth implements TokenSource, SessionSource {
  private held: Held | undefined;
  private pending: Promise<Held> | undefined;
  private readonly now: () => number;
  private readonly identity: Session;

  constructor(private readonly opts: AppCredentialAuthOptions) {
    this.now = opts.now ?? Date.now;
    const base = opts.authUrl.replace(/\/+$/, '');
    this.identity = {
      service: 'identity',
      baseUrl: /\/v3$/.test(base) ? base.slice(0, -3) : base,
      timeoutMs: opts.timeoutMs,
      ...(opts.retry ? { retry: opts.retry } : {}),
      ...(opts.log ? { log: opts.log } : {}),
      ...(opts.metrics ? { metrics: opts.metrics } : {}),
    };
  }

  /** A valid token: the held one, or a fresh login when none is held or it is due for renewal. */
  async token(): Promise<string> {
    return (await this.current()).token;
  }

  invalidate(token: string): void {
    if (this.held?.token === token) this.held = undefined;
  }

  /** The token's user, project, roles and catalog. */
  async context(): Promise<AuthContext> {
    return (await this.current()).context;
  }

  /** A session of `type` from the credential's catalog, its token renewed as needed. */
  async session(type: string, extra: { globalRequestId?: string } = {}): Promise<Session> {
    const { context } = await this.current();
    const { authUrl: _u, id: _i, secret: _s, renewBeforeMs: _r, now: _n, ...options } = this.opts;
    return sessionFor(context.catalog, this, type, { ...options, ...extra });
  }

  private async current(): Promise<Held> {
    const held = this.held;
    if (held && this.now() < held.renewAt) return held;
    // One login at a time: concurrent callers share it.
    this.pending ??= this.login().finally(() => {
      this.pending = undefined;
    });
    try {
      return await this.pending;
    } catch (e) {
      // A renewal that fails because Keystone is down leaves the held token in use until it expires.
      if (e instanceof OpenStackError && e.retryable && held && this.held === held && this.now() < held.expiresAt) return held;
      throw e;
    }
  }

  private async login(): Promise<Held> {
    const startedAt = this.now();
    const body: AuthRequest = {
      auth: { identity: { methods: ['application_credential'], application_credential: { id: this.opts.id, secret: this.opts.secret } } },
    };
    const res = await requestJson<TokenResponse>(this.identity, {
      method: 'POST',
      path: '/v3/auth/tokens',
      body,
      operation: 'auth.tokens.create',
      // Issuing a token changes nothing a retry could duplicate.
      idempotent: true,
    });
    const token = res.headers.get('x-subject-token');
    if (!token) {
      throw new OpenStackError('identity', res.status, res.requestId, undefined, 'unexpected', 'identity POST /v3/auth/tokens: no X-Subject-Token in the answer');
    }
    const { expires_at, issued_at } = res.body.token;
    // Keystone's lifetime on our clock: immune to skew between the two.
    const lifetime = Math.max(0, Date.parse(expires_at) - Date.parse(issued_at));
    const margin = Math.min(this.opts.renewBeforeMs ?? DEFAULT_RENEW_BEFORE_MS, lifetime / 2);
    this.held = { token, context: contextFromToken(res.body), renewAt: startedAt + lifetime - margin, expiresAt: startedAt + lifetime };
    return this.held;
  }
}
