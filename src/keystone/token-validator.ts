// Validates a caller's X-Auth-Token as keystonemiddleware does: a cache keyed by a hash of the
// token (entries live at most min(token expiry, TTL)), concurrent validations of one token
// coalesced into one Keystone call, an optional offline JWS pre-filter, and a clean split
// between "invalid token" (401) and "Keystone unreachable" (503).
import { createHash } from 'node:crypto';
import type { Config } from '../config.js';
import { contextFromToken, type AuthContext } from './context.js';
import { callJson, UnreachableError } from './http.js';
import { JwsVerifier } from './jws.js';
import { LruCache } from './token-cache.js';
import { ServiceToken } from './service-token.js';

export class InvalidTokenError extends Error {}
export class KeystoneUnavailableError extends Error {}

export interface ValidatorMetrics {
  cache(result: 'hit' | 'miss'): void;
  keystoneCall(operation: string, outcome: string, seconds: number): void;
}

const noMetrics: ValidatorMetrics = { cache() {}, keystoneCall() {} };

export const tokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');

export class TokenValidator {
  private readonly cache: LruCache<AuthContext>;
  private readonly inflight = new Map<string, Promise<AuthContext>>();
  private readonly jws: JwsVerifier | undefined;
  /** Number of validation calls made to Keystone (for tests and metrics). */
  keystoneValidations = 0;

  constructor(
    private readonly cfg: Config['keystone'],
    private readonly serviceToken: ServiceToken,
    private readonly metrics: ValidatorMetrics = noMetrics,
  ) {
    this.cache = new LruCache(cfg.tokenCacheSize);
    this.jws = cfg.jwsPublicKeys.length > 0 ? new JwsVerifier(cfg.jwsPublicKeys) : undefined;
  }

  /** The cache's keys (SHA-256 of tokens), least recently used first; for tests and diagnostics. */
  cachedTokenHashes(): string[] {
    return this.cache.keys();
  }

  /** Drops a token known to be revoked (a portal logout) by its hash, so it is asked about again. */
  forget(hash: string): void {
    this.cache.delete(hash);
  }

  /** Checks the configuration's keys; call at boot so a bad key stops the process clearly. */
  async ready(): Promise<void> {
    await this.jws?.ready();
  }

  async validate(token: string): Promise<AuthContext> {
    const key = tokenHash(token);
    const now = Date.now();
    const cached = this.cache.get(key, now);
    if (cached) {
      this.metrics.cache('hit');
      return cached;
    }
    this.metrics.cache('miss');
    let pending = this.inflight.get(key);
    if (!pending) {
      pending = this.fetch(token, key).finally(() => this.inflight.delete(key));
      this.inflight.set(key, pending);
    }
    return pending;
  }

  private async fetch(token: string, key: string): Promise<AuthContext> {
    if (this.jws && !(await this.jws.verify(token))) throw new InvalidTokenError('token failed offline JWS verification');
    const ctx = await this.askKeystone(token, true);
    const until = Math.min(ctx.expiresAt, Date.now() + this.cfg.tokenCacheTtlSeconds * 1000);
    if (until > Date.now()) this.cache.set(key, ctx, until);
    return ctx;
  }

  private async askKeystone(token: string, retryOnServiceAuth: boolean): Promise<AuthContext> {
    let service: string;
    try {
      service = await this.serviceToken.get();
    } catch (e) {
      throw new KeystoneUnavailableError((e as Error).message);
    }
    const started = process.hrtime.bigint();
    let outcome = 'error';
    try {
      this.keystoneValidations++;
      const res = await callJson(`${this.cfg.authUrl}/auth/tokens`, {
        method: 'GET',
        timeoutMs: this.cfg.timeoutMs,
        headers: { 'x-auth-token': service, 'x-subject-token': token, 'openstack-identity-access-rules': '1.0' },
      });
      outcome = String(res.status);
      if (res.status === 200) {
        const ctx = contextFromToken(res.body);
        if (!(ctx.expiresAt > Date.now())) throw new InvalidTokenError('token expired');
        return ctx;
      }
      if (res.status === 401 && retryOnServiceAuth) {
        this.serviceToken.invalidate(service);
        return await this.askKeystone(token, false);
      }
      if (res.status === 404) throw new InvalidTokenError('token not found');
      throw new KeystoneUnavailableError(`token validation answered HTTP ${res.status}`);
    } catch (e) {
      if (e instanceof UnreachableError) throw new KeystoneUnavailableError(e.message);
      throw e;
    } finally {
      this.metrics.keystoneCall('validate_token', outcome, Number(process.hrtime.bigint() - started) / 1e9);
    }
  }
}
