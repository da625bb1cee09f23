// Users: list, create, show, update (enabled, password, ...), delete, and a user's projects; groups, of
// which the simulated Keystone has none (listed empty, as a Keystone without groups lists them: Horizon's
// identity panels read them).
import type { FastifyInstance } from 'fastify';
import { callerToken, requireAdmin, requireAdminOrOwner, type SimContext } from './context.js';
import { ksErrors } from './errors.js';
import { list, renderProject, renderUser } from './render.js';
import { IdParams, UserCreate, UserUpdate } from './schemas.js';

type Query = Record<string, string | undefined>;
const KNOWN_USER_FIELDS = new Set(['name', 'password', 'domain_id', 'default_project_id', 'enabled', 'description', 'id', 'links']);

export function registerUserRoutes(app: FastifyInstance, ctx: SimContext): void {
  const { state, urls } = ctx;

  function requireProject(id: string | null | undefined): string | undefined {
    if (id == null) return undefined;
    if (!state.projects.has(id)) throw ksErrors.notFound('project', id);
    return id;
  }

  app.get<{ Querystring: Query }>('/v3/users', async (request) => {
    requireAdmin(ctx, await callerToken(ctx, request), 'identity:list_users');
    const q = request.query;
    const users = (q.name === undefined ? [...state.users.values()] : state.users.by('name', q.name)).filter(
      (u) =>
        (q.name === undefined || u.name === q.name) &&
        (q.domain_id === undefined || u.domainId === q.domain_id) &&
        (q.enabled === undefined || ['1', 'true', 'yes', 'on'].includes(q.enabled.toLowerCase()) === u.enabled),
    );
    return list(urls, '/users', 'users', users.map((u) => renderUser(urls, u)));
  });

  app.post<{ Body: UserCreate }>('/v3/users', { schema: { body: UserCreate } }, async (request, reply) => {
    const caller = await callerToken(ctx, request);
    requireAdmin(ctx, caller, 'identity:create_user');
    const body = request.body.user;
    const extra = Object.fromEntries(Object.entries(body).filter(([k]) => !KNOWN_USER_FIELDS.has(k)));
    const domainId = body.domain_id ?? caller.projectDomain?.id ?? caller.domain?.id ?? 'default';
    const id = state.createUser(body.name, body.password ?? undefined, requireProject(body.default_project_id), {
      domainId,
      extra,
      ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
      ...(body.description != null ? { description: body.description } : {}),
    });
    reply.code(201);
    return { user: renderUser(urls, state.users.get(id)!) };
  });

  app.get<{ Params: IdParams }>('/v3/users/:id', async (request) => {
    requireAdminOrOwner(ctx, await callerToken(ctx, request), request.params.id, 'identity:get_user');
    const user = state.users.get(request.params.id);
    if (!user) throw ksErrors.notFound('user', request.params.id);
    return { user: renderUser(urls, user) };
  });

  app.patch<{ Params: IdParams; Body: UserUpdate }>(
    '/v3/users/:id',
    { schema: { body: UserUpdate } },
    async (request) => {
      requireAdmin(ctx, await callerToken(ctx, request), 'identity:update_user');
      const user = state.users.get(request.params.id);
      if (!user) throw ksErrors.notFound('user', request.params.id);
      const patch = request.body.user;
      if (patch.name !== undefined && patch.name !== user.name) {
        if (state.findUserByName(patch.name, user.domainId)) {
          throw ksErrors.conflict('user', `Duplicate entry found with name ${patch.name}.`);
        }
        user.name = patch.name;
        state.users.refile(user.id);
      }
      if (patch.default_project_id !== undefined) {
        const projectId = requireProject(patch.default_project_id);
        if (projectId === undefined) delete user.defaultProjectId;
        else user.defaultProjectId = projectId;
      }
      if (patch.description !== undefined) {
        if (patch.description === null) delete user.description;
        else user.description = patch.description;
      }
      if (patch.password !== undefined) state.setUserPassword(user.id, patch.password);
      if (patch.enabled !== undefined) state.setUserEnabled(user.id, patch.enabled);
      return { user: renderUser(urls, user) };
    },
  );

  app.delete<{ Params: IdParams }>('/v3/users/:id', async (request, reply) => {
    requireAdmin(ctx, await callerToken(ctx, request), 'identity:delete_user');
    if (!state.users.has(request.params.id)) throw ksErrors.notFound('user', request.params.id);
    state.deleteUser(request.params.id);
    return reply.code(204).send();
  });

  app.get<{ Params: IdParams }>('/v3/users/:id/projects', async (request) => {
    requireAdminOrOwner(ctx, await callerToken(ctx, request), request.params.id, 'identity:list_user_projects');
    if (!state.users.has(request.params.id)) throw ksErrors.notFound('user', request.params.id);
    const projects = state.projectsOfUser(request.params.id);
    return list(urls, `/users/${request.params.id}/projects`, 'projects', projects.map((p) => renderProject(urls, p)));
  });

  app.get('/v3/groups', async (request) => {
    requireAdmin(ctx, await callerToken(ctx, request), 'identity:list_groups');
    return list(urls, '/groups', 'groups', []);
  });

  app.get<{ Params: IdParams }>('/v3/groups/:id', async (request) => {
    requireAdmin(ctx, await callerToken(ctx, request), 'identity:get_group');
    throw ksErrors.notFound('group', request.params.id);
  });

  app.get<{ Params: IdParams }>('/v3/users/:id/groups', async (request) => {
    requireAdminOrOwner(ctx, await callerToken(ctx, request), request.params.id, 'identity:list_groups_for_user');
    if (!state.users.has(request.params.id)) throw ksErrors.notFound('user', request.params.id);
    return list(urls, `/users/${request.params.id}/groups`, 'groups', []);
  });
}
