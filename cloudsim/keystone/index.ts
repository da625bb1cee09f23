// Keystone v3 emulator: a Fastify app serving /v3 over in-memory state, opaque or ES256 JWS tokens.
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { KeystoneUnavailable, type SimCaller } from '../common/keystone-auth.js';
import { Authenticator } from './authenticate.js';
import { Catalog } from './catalog.js';
import type { CatalogEntry } from './catalog.js';
import { Urls } from './context.js';
import type { SimContext } from './context.js';
import { KeystoneError, registerErrorHandling } from './errors.js';
import { JwsCodec } from './jws.js';
import { registerAppCredRoutes } from './routes-appcreds.js';
import { registerAuthRoutes } from './routes-auth.js';
import { registerCatalogRoutes } from './routes-catalog.js';
import { registerProjectRoutes } from './routes-projects.js';
import { registerUserRoutes } from './routes-users.js';
import { registerVersionRoutes } from './routes-versions.js';
import { seedState } from './seed.js';
import type { BuiltinUser } from './seed.js';
import { newRequestId } from './secrets.js';
import { KeystoneState } from './state.js';
import { TokenService } from './token-service.js';
import { OpaqueCodec } from './tokens.js';
import type { TokenCodec } from './tokens.js';

export { KeystoneState } from './state.js';
export type { Scope, Project, User, Role, Domain, Assignment } from './state.js';
export type { CatalogEntry, Interface } from './catalog.js';
export type { KeystoneJwtClaims } from './jws.js';
export { DEFAULT_PASSWORDS } from './seed.js';

export interface KeystoneSimOptions {
  /** e.g. http://127.0.0.1:5000 (the emulator serves /v3 under it); may be set after listen via setPublicUrl. */
  publicUrl: string;
  /** Default 'RegionOne'. */
  region?: string;
  /** Default 3600. */
  tokenTtlSeconds?: number;
  /** Default 'opaque' (fernet-like random ids). */
  tokenFormat?: 'opaque' | 'jws';
  passwords?: Partial<Record<BuiltinUser, string>>;
  /** Extra services beyond identity; public and internal endpoints unless `interfaces` says otherwise. */
  catalog?: CatalogEntry[];
  /** Clock in epoch ms (tests may move time); default Date.now. */
  now?: () => number;
}

export interface KeystoneSim {
  app: FastifyInstance;
  state: KeystoneState;
  /** Rebuilds the identity catalog entry and all links from this URL. */
  setPublicUrl(url: string): void;
  /** SPKI PEM of the ES256 signing key when tokenFormat = 'jws'. */
  jwsPublicKeyPem(): string | undefined;
  /**
   * The caller behind a token as GET /v3/auth/tokens describes it to a service (no access-rules header: a token
   * of a credential with access rules is refused), asked in process by the simulated services of the same
   * cloud; undefined for a token that is not valid; KeystoneUnavailable while the emulator does not listen.
   */
  callerOf(token: string): Promise<SimCaller | undefined>;
}

const ALLOW_EXPIRED_WINDOW_MS = 172_800_000; // [token] allow_expired_window = 48 h

export async function createKeystoneSim(opts: KeystoneSimOptions): Promise<KeystoneSim> {
  const now = opts.now ?? Date.now;
  const codec: TokenCodec =
    opts.tokenFormat === 'jws' ? await JwsCodec.create() : new OpaqueCodec(now, ALLOW_EXPIRED_WINDOW_MS);
  const urls = new Urls(opts.publicUrl);
  const catalog = new Catalog(opts.region ?? 'RegionOne');
  const state = new KeystoneState(catalog, { now, peekAuditIds: (t) => codec.peekAuditIds(t) });
  seedState(state, opts.passwords);

  const identityEntry = (): CatalogEntry => ({
    type: 'identity',
    name: 'keystone',
    url: urls.v3,
    interfaces: ['public', 'internal', 'admin'],
  });
  catalog.upsert(identityEntry());
  for (const entry of opts.catalog ?? []) catalog.upsert(entry);

  const tokens = new TokenService(state, codec, {
    ttlMs: (opts.tokenTtlSeconds ?? 3600) * 1000,
    allowExpiredWindowMs: ALLOW_EXPIRED_WINDOW_MS,
  });
  const ctx: SimContext = { state, tokens, authenticator: new Authenticator(state, tokens), urls };

  // OpenStack's services take path segments of any length (an unknown 255-character id is a 404), not Fastify's 100.
  const app = Fastify({ logger: false, routerOptions: { ignoreTrailingSlash: true, maxParamLength: 8192 } });
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('x-openstack-request-id', newRequestId());
  });
  // JSON bodies; an empty body (e.g. a DELETE sent with a JSON content type) is no body.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new KeystoneError(400, 'The request body is not valid JSON.'), undefined);
    }
  });
  registerErrorHandling(app, () => urls.v3);
  registerVersionRoutes(app, ctx);
  registerAuthRoutes(app, ctx);
  registerProjectRoutes(app, ctx);
  registerUserRoutes(app, ctx);
  registerAppCredRoutes(app, ctx);
  registerCatalogRoutes(app, ctx);

  return {
    app,
    state,
    setPublicUrl(url: string) {
      urls.publicUrl = url;
      catalog.upsert(identityEntry());
    },
    jwsPublicKeyPem: () => codec.publicKeyPem(),
    async callerOf(token) {
      if (!app.server.listening) throw new KeystoneUnavailable('Keystone unreachable: the emulator is stopped');
      const t = await tokens.validate(token);
      if (!t) return undefined;
      const roles = t.payload.scope === undefined ? [] : t.roleIds.map((id) => (state.roles.get(id)?.name ?? id).toLowerCase());
      return { userId: t.user.id, projectId: t.project?.id, roles, isAdmin: roles.includes('admin') };
    },
  };
}
