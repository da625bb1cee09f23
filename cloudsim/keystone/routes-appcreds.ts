// /v3/users/{uid}/application_credentials: create (secret shown once), list, show, delete.
import type { FastifyInstance } from 'fastify';
import { callerToken, forbidAction, requireAdminOrOwner, type SimContext } from './context.js';
import { KeystoneError, ksErrors } from './errors.js';
import { parseIsoTime } from './format.js';
import { list, renderAppCred } from './render.js';
import { AppCredCreate } from './schemas.js';
import type { ValidatedToken } from './token-service.js';

type UserParams = { uid: string };
type CredParams = { uid: string; id: string };

/** Tokens from a restricted application credential may not create or delete application credentials. */
function forbidRestricted(caller: ValidatedToken, action: string): void {
  if (caller.appCred && !caller.appCred.unrestricted) forbidAction(action);
}

export function registerAppCredRoutes(app: FastifyInstance, ctx: SimContext): void {
  const { state, urls } = ctx;
  const base = '/v3/users/:uid/application_credentials';

  app.post<{ Params: UserParams; Body: AppCredCreate }>(
    base,
    { schema: { body: AppCredCreate } },
    async (request, reply) => {
      const caller = await callerToken(ctx, request);
      const action = 'identity:create_application_credential';
      if (caller.user.id !== request.params.uid) forbidAction(action);
      forbidRestricted(caller, action);
      const body = request.body.application_credential;
      if (!caller.project) {
        throw ksErrors.badRequest('Application credentials must be created with a project-scoped token.');
      }
      const roleIds = body.roles === undefined ? caller.roleIds : body.roles.map((ref) => {
        const role = ref.id !== undefined ? state.roles.get(ref.id) : ref.name !== undefined ? state.findRoleByName(ref.name) : undefined;
        if (!role) throw ksErrors.notFound('role', ref.id ?? ref.name ?? '');
        if (!caller.roleIds.includes(role.id)) {
          throw new KeystoneError(400, `Invalid application credential: Could not find role assignment with role: ${role.id}, user or group: ${caller.user.id}, project, domain, or system: ${caller.project!.id}.`);
        }
        return role.id;
      });
      if (roleIds.length === 0) throw ksErrors.badRequest('Invalid application credential: no roles.');
      let expiresAt: number | null = null;
      if (body.expires_at != null) {
        const parsed = parseIsoTime(body.expires_at);
        if (parsed === undefined) throw ksErrors.badRequest(`Invalid input for field 'expires_at': ${body.expires_at}`);
        expiresAt = parsed;
      }
      const { cred, secret } = await state.appCreds.create({
        userId: caller.user.id,
        name: body.name,
        projectId: caller.project.id,
        roleIds,
        expiresAt,
        description: body.description ?? null,
        unrestricted: body.unrestricted ?? false,
        ...(body.secret != null ? { secret: body.secret } : {}),
        ...(body.access_rules !== undefined ? { accessRules: body.access_rules } : {}),
      });
      reply.code(201);
      return { application_credential: { ...renderAppCred(urls, cred, state.roles), secret } };
    },
  );

  app.get<{ Params: UserParams; Querystring: { name?: string } }>(base, async (request) => {
    const { uid } = request.params;
    requireAdminOrOwner(ctx, await callerToken(ctx, request), uid, 'identity:list_application_credentials');
    if (!state.users.has(uid)) throw ksErrors.notFound('user', uid);
    const creds = state.appCreds.listForUser(uid, request.query.name);
    const path = `/users/${uid}/application_credentials`;
    return list(urls, path, 'application_credentials', creds.map((c) => renderAppCred(urls, c, state.roles)));
  });

  // One credential: Keystone judges by its real owner, whatever user the path names (it replaces the
  // path's user with the owner before its policy check), so an admin reaches any credential by id and
  // an owner its own under any path; a missing one is judged on the path's user, then 404.
  app.get<{ Params: CredParams }>(`${base}/:id`, async (request) => {
    const { uid, id } = request.params;
    const cred = state.appCreds.get(id);
    requireAdminOrOwner(ctx, await callerToken(ctx, request), cred?.userId ?? uid, 'identity:get_application_credential');
    if (!cred) throw ksErrors.notFound('application credential', id);
    return { application_credential: renderAppCred(urls, cred, state.roles) };
  });

  app.delete<{ Params: CredParams }>(`${base}/:id`, async (request, reply) => {
    const { uid, id } = request.params;
    const caller = await callerToken(ctx, request);
    const action = 'identity:delete_application_credential';
    const cred = state.appCreds.get(id);
    requireAdminOrOwner(ctx, caller, cred?.userId ?? uid, action);
    forbidRestricted(caller, action);
    if (!cred) throw ksErrors.notFound('application credential', id);
    state.appCreds.delete(id);
    return reply.code(204).send();
  });
}
