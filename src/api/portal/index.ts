// The server side of the portal, one plugin of the API: the built front-end under /ui/, the
// session endpoints under /portal/, and (through the auth plugin) the session cookie standing in
// for X-Auth-Token on /v1 with its CSRF token. Revocations at logout reach every API process over
// Redis pub/sub, so none keeps a revoked token in its validation cache.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.js';
import { PortalKeystone } from '../../keystone/portal-login.js';
import { portalSessionRoutes } from './routes.js';
import { SessionStore } from './session-store.js';
import { loginKeyFrom, PortalSessions, revokedChannel } from './sessions.js';
import { portalStatic } from './static.js';

export interface PortalOptions {
  /** The built front-end (default portal/dist of the repository). */
  distDir?: string;
}

/** The session logic, made once per app (the auth plugin asks it for tokens). */
export function createPortalSessions(s: Services): PortalSessions {
  const c = s.config;
  return new PortalSessions({
    store: new SessionStore(s.redis, s.secretBox, c.queuePrefix),
    keystone: new PortalKeystone(c.keystone.authUrl, c.keystone.timeoutMs),
    redis: s.redis,
    prefix: c.queuePrefix,
    limits: c.portal,
    loginKey: loginKeyFrom(c.secretKeys[0]!),
    forget: (hash) => s.validator.forget(hash),
  });
}

export async function registerPortal(app: FastifyInstance, sessions: PortalSessions, opts: PortalOptions = {}): Promise<void> {
  const s = app.services;
  // Not awaited: an app that never serves (the OpenAPI generator) has no Redis to reach.
  const sub = s.redis.duplicate({ lazyConnect: true, maxRetriesPerRequest: null });
  sub.on('error', (e: Error) => app.log.warn({ reason: e.message }, 'portal revocation feed: redis error'));
  sub.subscribe(revokedChannel(s.config.queuePrefix)).catch((e: Error) => app.log.warn({ reason: e.message }, 'portal revocation feed not subscribed'));
  sub.on('message', (_channel: string, message: string) => {
    for (const hash of message.split(',')) if (/^[0-9a-f]{64}$/.test(hash)) s.validator.forget(hash);
  });
  app.addHook('onClose', async () => {
    sub.disconnect();
  });
  await app.register(async (scope) => {
    await portalStatic(scope, opts);
    await portalSessionRoutes(scope, { sessions });
  });
}
