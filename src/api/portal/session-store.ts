// Browser sessions in Redis, so every API process sees them. The browser holds only the opaque
// session id (32 random bytes); Redis holds a hash keyed by the id's SHA-256, each field sealed
// with SECRET_KEYS (src/security/secret-box.ts) and bound to its key and field, so neither a copy
// of Redis nor a moved field yields a token. Fields: `core` (user, projects, CSRF token, expiry)
// and one `t:<project id>` per token held (`t:*` for an unscoped one). The hash expires with the
// login's token.
import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { SecretBox } from '../../security/secret-box.js';
import type { ProjectRef } from '../../keystone/portal-login.js';

export interface SessionCore {
  user: { id: string; name: string; domainId: string | null };
  method: 'password' | 'application_credential';
  /** The synchronizer token every cookie-authenticated request repeats in X-CSRF-Token. */
  csrf: string;
  projects: ProjectRef[];
  /** The project the login scoped to: where a URL without one lands. */
  defaultProject: string;
  createdAt: number;
  /** Epoch ms: the login token's expiry (rescoped tokens keep it). */
  expiresAt: number;
}

export interface HeldToken {
  token: string;
  expiresAt: number;
}

export const UNSCOPED = '*';

export interface Session {
  /** The Redis key (from the id's hash). */
  key: string;
  core: SessionCore;
}

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

export class SessionStore {
  constructor(
    private readonly redis: Redis,
    private readonly box: SecretBox,
    private readonly prefix: string,
  ) {}

  private keyOf(sid: string): string {
    return `${this.prefix}:portal:session:${sha(sid)}`;
  }

  private seal(key: string, field: string, value: unknown): string {
    return this.box.seal(JSON.stringify(value), `${key}|${field}`);
  }

  private open<T>(key: string, field: string, sealed: string | null | undefined): T | undefined {
    if (!sealed) return undefined;
    try {
      return JSON.parse(this.box.open(sealed, `${key}|${field}`)) as T;
    } catch {
      return undefined;
    }
  }

  /** A new session; returns its id (for the cookie only). */
  async create(core: SessionCore, tokens: Record<string, HeldToken>): Promise<string> {
    const sid = randomBytes(32).toString('base64url');
    const key = this.keyOf(sid);
    const fields: Record<string, string> = { core: this.seal(key, 'core', core) };
    for (const [project, t] of Object.entries(tokens)) fields[`t:${project}`] = this.seal(key, `t:${project}`, t);
    await this.redis.multi().hset(key, fields).pexpireat(key, core.expiresAt).exec();
    return sid;
  }

  /** The live session of a cookie value, or undefined (unknown, expired, or not ours). */
  async find(sid: string): Promise<Session | undefined> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(sid)) return undefined;
    const key = this.keyOf(sid);
    const core = this.open<SessionCore>(key, 'core', await this.redis.hget(key, 'core'));
    if (!core || core.expiresAt <= Date.now()) return undefined;
    return { key, core };
  }

  async token(s: Session, project: string): Promise<HeldToken | undefined> {
    return this.open<HeldToken>(s.key, `t:${project}`, await this.redis.hget(s.key, `t:${project}`));
  }

  /** Every token the session holds (for a rescope source and for the logout). */
  async tokens(s: Session): Promise<HeldToken[]> {
    const all = await this.redis.hgetall(s.key);
    return Object.entries(all)
      .filter(([f]) => f.startsWith('t:'))
      .map(([f, v]) => this.open<HeldToken>(s.key, f, v))
      .filter((t): t is HeldToken => t !== undefined);
  }

  /**
   * Keeps a token for `project` unless another request stored one first (HSETNX): the one kept is
   * returned, and `false` tells the caller its own is spare (to be revoked, never lost untracked).
   */
  async addToken(s: Session, project: string, t: HeldToken): Promise<{ kept: HeldToken; stored: boolean }> {
    const field = `t:${project}`;
    const stored = (await this.redis.hsetnx(s.key, field, this.seal(s.key, field, t))) === 1;
    if (stored) return { kept: t, stored };
    return { kept: (await this.token(s, project)) ?? t, stored };
  }

  /** Replaces an expiring token of `project`. */
  async replaceToken(s: Session, project: string, t: HeldToken): Promise<void> {
    await this.redis.hset(s.key, `t:${project}`, this.seal(s.key, `t:${project}`, t));
  }

  async destroy(s: Session): Promise<void> {
    await this.redis.del(s.key);
  }
}
