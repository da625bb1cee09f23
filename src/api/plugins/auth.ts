// Keystone authentication of every request but the public ones (version documents, health,
// metrics, the OpenAPI document and its UI). The caller becomes request.auth. A token of an
// application credential with access rules passes only requests one of its rules allows (403).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from '../../domain/errors.js';
import { accessRuleRefusal, requestPaths } from '../../keystone/access-rules.js';
import type { AuthContext } from '../../keystone/context.js';
import { InvalidTokenError, KeystoneUnavailableError, type TokenValidator } from '../../keystone/token-validator.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The validated caller; set on every authenticated route. */
    auth: AuthContext;
    /** The caller's token, for calls made on its behalf. Never logged. */
    authToken: string;
  }
  interface FastifyContextConfig {
    /** No token needed. */
    public?: boolean;
  }
}

const PUBLIC_PREFIXES = ['/v1/docs'];

function isPublic(request: FastifyRequest): boolean {
  if (request.routeOptions.config?.public) return true;
  const path = request.url.split('?')[0] ?? '';
  return PUBLIC_PREFIXES.some((p) => path === p || path.startsWith(`${p}/`));
}

/** The token of a portal session when the request carries its cookie (src/api/portal); undefined otherwise. */
export type SessionTokenSource = (request: FastifyRequest) => Promise<string | undefined>;

export function registerAuth(app: FastifyInstance, validator: TokenValidator, authUrl: string, sessionToken?: SessionTokenSource): void {
  app.decorateRequest('auth', null, []);
  app.decorateRequest('authToken', '');
  app.addHook('onRequest', async (request, reply) => {
    if (isPublic(request)) return;
    const token = (await sessionToken?.(request)) ?? request.headers['x-auth-token'];
    if (typeof token !== 'string' || token === '') throw errors.unauthorized(authUrl);
    try {
      request.auth = await validator.validate(token);
    } catch (e) {
      if (e instanceof InvalidTokenError) {
        request.log.info({ reason: e.message }, 'token refused');
        throw errors.unauthorized(authUrl);
      }
      if (e instanceof KeystoneUnavailableError) {
        request.log.error({ reason: e.message }, 'keystone unavailable');
        throw errors.keystoneUnavailable();
      }
      throw e;
    }
    const paths = requestPaths(request.originalUrl, request.url);
    const refusal = accessRuleRefusal(request.auth, { method: request.method, paths });
    if (refusal) {
      request.log.info({ reason: refusal, credential: request.auth.applicationCredential?.id }, 'access rules refused the request');
      throw errors.accessRuleDenied(request.method, paths[0] ?? '');
    }
    request.authToken = token;
    const log = request.log.child({ project: request.auth.projectId, user: request.auth.userId });
    request.log = log;
    reply.log = log;
  });
}
