// What a portal session does: log in (a token per project, kept server-side), turn a cookie-borne
// /v1 request into the token of the project it names (rescoping once per project), and log out
// (every token revoked in Keystone, dropped from every API process's validation cache).
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { errors } from '../../domain/errors.js';
import { tokenHash } from '../../keystone/token-validator.js';
import { cookies, CSRF_HEADER, PROJECT_HEADER, requireSameOrigin, sameSecret, SESSION_COOKIE, type LoginLimits } from './guards.js';
import type { LoginRequest, PortalKeystone } from '../../keystone/portal-login.js';
import { UNSCOPED, type HeldToken, type Session, type SessionStore } from './session-store.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A Server-Sent Events stream: under the cookie, its CSRF token and project may come in the query (EventSource sends no headers). */
    stream?: boolean;
  }
}

export interface PortalDeps {
  store: SessionStore;
  keystone: PortalKeystone;
  redis: Redis;
  prefix: string;
  limits: LoginLimits;
  /** Keys the login form's token (derived from the first SECRET_KEYS key). */
  loginKey: Buffer;
  /** Drops a revoked token's hash from this process's validation cache. */
  forget(hash: string): void;
}

export const revokedChannel = (prefix: string) => `${prefix}:portal:revoked`;

export function loginKeyFrom(secret: Buffer): Buffer {
  return createHmac('sha256', secret).update('magnum-ts portal login form').digest();
}

export class PortalSessions {
  constructor(readonly deps: PortalDeps) {}

  /** Logs in with Keystone; the new session's id (for the cookie) and its core. */
  async login(req: LoginRequest): Promise<{ sid: string; session: Session }> {
    const { keystone, store } = this.deps;
    const first = await keystone.login(req);
    if (!first) throw errors.loginRefused();
    const projects = req.method === 'application_credential' && first.project
      ? [{ id: first.project.id, name: first.project.name, domain_id: first.project.domainId }]
      : await keystone.projects(first.token);
    const tokens: Record<string, HeldToken> = {};
    let defaultProject = first.project?.id;
    if (first.project) {
      tokens[first.project.id] = { token: first.token, expiresAt: first.expiresAt };
      if (!projects.some((p) => p.id === first.project!.id)) projects.unshift({ id: first.project.id, name: first.project.name, domain_id: first.project.domainId });
    } else {
      // Unscoped: kept to rescope from; the first project the user may use is where the portal opens.
      tokens[UNSCOPED] = { token: first.token, expiresAt: first.expiresAt };
      defaultProject = projects[0]?.id;
    }
    if (!defaultProject) {
      await keystone.revoke(first.token);
      throw errors.loginRefused();
    }
    const core = {
      user: first.user,
      method: req.method,
      csrf: randomBytes(32).toString('base64url'),
      projects,
      defaultProject,
      createdAt: Date.now(),
      expiresAt: first.expiresAt,
    };
    const sid = await store.create(core, tokens);
    return { sid, session: (await store.find(sid))! };
  }

  /** The session a request's cookie names (same origin only), or undefined without a cookie. */
  async sessionOf(request: FastifyRequest): Promise<Session | undefined> {
    const sid = cookies(request)[SESSION_COOKIE];
    if (sid === undefined) return undefined;
    requireSameOrigin(request);
    const s = await this.deps.store.find(sid);
    if (!s) throw errors.sessionExpired();
    return s;
  }

  /** For the auth plugin: the token a cookie-borne request acts with, or undefined when it has no cookie. */
  async tokenFor(request: FastifyRequest): Promise<string | undefined> {
    if (cookies(request)[SESSION_COOKIE] === undefined) return undefined;
    if (request.headers['x-auth-token'] !== undefined) throw errors.sessionAndToken();
    const s = (await this.sessionOf(request))!;
    const query = (request.query ?? {}) as Record<string, unknown>;
    const stream = request.method === 'GET' && request.routeOptions.config?.stream === true;
    const fromQuery = (k: string) => (stream && typeof query[k] === 'string' ? (query[k] as string) : undefined);
    const header = (k: string) => (typeof request.headers[k] === 'string' ? (request.headers[k] as string) : undefined);
    if (!sameSecret(header(CSRF_HEADER) ?? fromQuery('csrf'), s.core.csrf)) throw errors.csrfRefused('the session’s X-CSRF-Token is missing or wrong');
    const project = header(PROJECT_HEADER) ?? fromQuery('project') ?? s.core.defaultProject;
    return this.projectToken(s, project);
  }

  /** The session's token for `project`, rescoped from one it holds when it has none yet. */
  async projectToken(s: Session, project: string): Promise<string> {
    const { store, keystone } = this.deps;
    if (!s.core.projects.some((p) => p.id === project)) throw errors.projectNotInSession(project);
    const held = await store.token(s, project);
    if (held && held.expiresAt > Date.now()) return held.token;
    if (s.core.method === 'application_credential') throw errors.sessionExpired();
    const source = (await store.tokens(s)).find((t) => t.expiresAt > Date.now());
    if (!source) throw errors.sessionExpired();
    const issued = await keystone.rescope(source.token, project);
    if (!issued) throw errors.projectNotInSession(project);
    const { kept, stored } = await store.addToken(s, project, { token: issued.token, expiresAt: issued.expiresAt });
    if (!stored) await keystone.revoke(issued.token);
    return kept.token;
  }

  /** Revokes every token of the session in Keystone, forgets them everywhere, destroys the session. */
  async logout(s: Session): Promise<{ revoked: number; held: number }> {
    const { store, keystone, redis, prefix } = this.deps;
    const tokens = await store.tokens(s);
    await store.destroy(s);
    const results = await Promise.all(tokens.map((t) => keystone.revoke(t.token)));
    const hashes = tokens.map((t) => tokenHash(t.token));
    for (const h of hashes) this.deps.forget(h);
    if (hashes.length > 0) await redis.publish(revokedChannel(prefix), hashes.join(','));
    return { revoked: results.filter(Boolean).length, held: tokens.length };
  }

  /** What the page may know of its session: never a token. */
  view(s: Session) {
    return {
      user: { id: s.core.user.id, name: s.core.user.name, domain_id: s.core.user.domainId },
      method: s.core.method,
      projects: s.core.projects,
      default_project: s.core.defaultProject,
      expires_at: new Date(s.core.expiresAt).toISOString(),
      csrf_token: s.core.csrf,
    };
  }
}

/** A stable client key for rate limits (the address, hashed so Redis keys hold no address). */
export const clientKey = (request: FastifyRequest) => createHash('sha256').update(request.ip).digest('hex').slice(0, 32);
