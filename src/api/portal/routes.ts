// /portal/*: the portal's session endpoints (not Magnum's; documented under the `portal` tag).
// The login form's token comes with a pre-session cookie; login sets the session cookie; the
// session document gives the page its CSRF token, projects and expiry; logout ends it all.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { errors } from '../../domain/errors.js';
import { errorResponses } from '../schemas/common.js';
import { checkLoginAllowed, clearClientFailures, cookieHeader, cookies, countLoginFailure, CSRF_HEADER, LOGIN_COOKIE, loginToken, requireSameOrigin, sameSecret, SESSION_COOKIE } from './guards.js';
import type { LoginRequest } from '../../keystone/portal-login.js';
import { clientKey, type PortalSessions } from './sessions.js';

const Str = (max = 255) => Type.String({ minLength: 1, maxLength: max });

export const LoginBody = Type.Union(
  [
    Type.Object(
      {
        method: Type.Literal('password'),
        username: Str(),
        password: Type.String({ minLength: 1, maxLength: 4096 }),
        user_domain: Type.Optional(Str()),
        project: Type.Optional(Type.String({ maxLength: 255 })),
        project_domain: Type.Optional(Type.String({ maxLength: 255 })),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      { method: Type.Literal('application_credential'), application_credential_id: Str(), application_credential_secret: Type.String({ minLength: 1, maxLength: 4096 }) },
      { additionalProperties: false },
    ),
  ],
  { $id: 'PortalLogin' },
);
type LoginBodyT = Static<typeof LoginBody>;

const Project = Type.Object({ id: Type.String(), name: Type.String(), domain_id: Type.Union([Type.String(), Type.Null()]) });
export const PortalSession = Type.Object(
  {
    user: Type.Object({ id: Type.String(), name: Type.String(), domain_id: Type.Union([Type.String(), Type.Null()]) }),
    method: Type.Union([Type.Literal('password'), Type.Literal('application_credential')]),
    projects: Type.Array(Project),
    default_project: Type.String(),
    expires_at: Type.String({ description: 'When the session’s Keystone tokens expire (ISO time).' }),
    csrf_token: Type.String({ description: 'Repeat it in X-CSRF-Token on every cookie-authenticated /v1 call (query `csrf` for GET streams).' }),
    scope: Type.Optional(
      Type.Object({ project_id: Type.String(), roles: Type.Array(Type.String()), is_admin: Type.Boolean(), can_write: Type.Boolean() }, { description: 'The roles of the project asked with ?project=' }),
    ),
  },
  { $id: 'PortalSession' },
);

const TAGS = ['portal'];

export async function portalSessionRoutes(app: FastifyInstance, opts: { sessions: PortalSessions }): Promise<void> {
  const { sessions } = opts;
  const { deps } = sessions;

  app.get(
    '/portal/login',
    {
      config: { public: true },
      schema: {
        tags: TAGS,
        summary: 'Start a login: a pre-session cookie and the login form’s CSRF token',
        response: { 200: Type.Object({ csrf_token: Type.String() }) },
      },
    },
    async (request, reply) => {
      const value = randomBytes(32).toString('base64url');
      reply.header('set-cookie', cookieHeader(LOGIN_COOKIE, value, request, { path: '/portal', maxAge: 3600 }));
      reply.header('cache-control', 'no-store');
      return { csrf_token: loginToken(deps.loginKey, value) };
    },
  );

  app.post<{ Body: LoginBodyT }>(
    '/portal/login',
    {
      config: { public: true },
      schema: {
        tags: TAGS,
        summary: 'Log in with Keystone (password or application credential); sets the HttpOnly session cookie',
        description: 'Needs the login cookie and its token in X-CSRF-Token, from the same origin. Rate-limited per client (its real address); a client failing for a user waits a delay growing with that user\'s failures (429, Retry-After), while the right password from a client that has not been failing is never refused for the user\'s sake.',
        body: Type.Ref(LoginBody),
        response: { 200: Type.Ref(PortalSession), ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request, reply) => {
      requireSameOrigin(request);
      const pre = cookies(request)[LOGIN_COOKIE];
      const sent = request.headers[CSRF_HEADER];
      if (!pre || !sameSecret(typeof sent === 'string' ? sent : undefined, loginToken(deps.loginKey, pre))) {
        throw errors.csrfRefused('the login form’s token is missing or wrong');
      }
      const b = request.body;
      const user = b.method === 'password' ? `${b.user_domain ?? 'Default'}/${b.username}` : `appcred/${b.application_credential_id}`;
      const client = clientKey(request);
      await checkLoginAllowed(deps.redis, deps.prefix, deps.limits, client, user);
      const req: LoginRequest =
        b.method === 'password'
          ? { method: 'password', username: b.username, password: b.password, userDomain: b.user_domain ?? 'Default', project: b.project, projectDomain: b.project_domain }
          : { method: 'application_credential', id: b.application_credential_id, secret: b.application_credential_secret };
      const { sid, session } = await sessions.login(req).catch(async (e: unknown) => {
        if ((e as { id?: string }).id === 'login_refused') await countLoginFailure(deps.redis, deps.prefix, deps.limits, client, user);
        throw e;
      });
      await clearClientFailures(deps.redis, deps.prefix, client, user);
      const maxAge = Math.max(1, Math.floor((session.core.expiresAt - Date.now()) / 1000));
      reply.header('set-cookie', [cookieHeader(SESSION_COOKIE, sid, request, { maxAge }), cookieHeader(LOGIN_COOKIE, '', request, { path: '/portal', maxAge: 0 })]);
      reply.header('cache-control', 'no-store');
      request.log.info({ user: session.core.user.id, method: session.core.method }, 'portal login');
      return sessions.view(session);
    },
  );

  app.get<{ Querystring: { project?: string } }>(
    '/portal/session',
    {
      config: { public: true },
      schema: {
        tags: TAGS,
        summary: 'The session: user, projects, expiry, CSRF token; with ?project= the roles held there',
        querystring: Type.Object({ project: Type.Optional(Type.String({ maxLength: 64 })) }),
        response: { 200: Type.Ref(PortalSession), ...errorResponses(401, 403) },
      },
    },
    async (request, reply) => {
      const s = await sessions.sessionOf(request);
      if (!s) throw errors.sessionExpired();
      reply.header('cache-control', 'no-store');
      const view = sessions.view(s);
      const project = request.query.project;
      if (!project) return view;
      const ctx = await app.services.validator.validate(await sessions.projectToken(s, project));
      const canWrite = ctx.isAdmin || ctx.roles.includes('member');
      return { ...view, scope: { project_id: project, roles: ctx.roles, is_admin: ctx.isAdmin, can_write: canWrite } };
    },
  );

  app.post(
    '/portal/logout',
    {
      config: { public: true },
      schema: {
        tags: TAGS,
        summary: 'Log out: revoke every token of the session in Keystone, destroy it, clear the cookie',
        response: { 204: Type.Null(), ...errorResponses(401, 403) },
      },
    },
    async (request: FastifyRequest, reply: FastifyReply) => {
      const s = await sessions.sessionOf(request);
      if (!s) throw errors.sessionExpired();
      const sent = request.headers[CSRF_HEADER];
      if (!sameSecret(typeof sent === 'string' ? sent : undefined, s.core.csrf)) throw errors.csrfRefused('the session’s X-CSRF-Token is missing or wrong');
      const r = await sessions.logout(s);
      request.log.info({ user: s.core.user.id, revoked: r.revoked, held: r.held }, 'portal logout');
      reply.header('set-cookie', cookieHeader(SESSION_COOKIE, '', request, { maxAge: 0 }));
      return reply.code(204).send();
    },
  );
}
