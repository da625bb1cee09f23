// Projects, domains, roles, role grants on projects, and GET /v3/role_assignments.
import type { FastifyInstance } from 'fastify';
import { callerToken, forbidAction, isAdmin, requireAdmin, requireAdminOrOwner, type SimContext } from './context.js';
import { ksErrors } from './errors.js';
import { list, renderDomain, renderProject, renderRole } from './render.js';
import { IdParams, ProjectCreate } from './schemas.js';
import type { Assignment, Scope } from './state.js';

type Query = Record<string, string | undefined>;
type GrantParams = { p: string; u: string; r: string };

/** `enabled` query filters compare as Keystone's booleans. */
function matchesEnabled(q: Query, enabled: boolean): boolean {
  if (q.enabled === undefined) return true;
  return ['1', 'true', 'yes', 'on'].includes(q.enabled.toLowerCase()) === enabled;
}

export function registerProjectRoutes(app: FastifyInstance, ctx: SimContext): void {
  const { state, urls } = ctx;

  app.get<{ Querystring: Query }>('/v3/projects', async (request) => {
    requireAdmin(ctx, await callerToken(ctx, request), 'identity:list_projects');
    const q = request.query;
    const projects = (q.name === undefined ? [...state.projects.values()] : state.projects.by('name', q.name)).filter(
      (p) =>
        (q.name === undefined || p.name === q.name) &&
        (q.domain_id === undefined || p.domainId === q.domain_id) &&
        matchesEnabled(q, p.enabled),
    );
    return list(urls, '/projects', 'projects', projects.map((p) => renderProject(urls, p)));
  });

  app.post<{ Body: ProjectCreate }>('/v3/projects', { schema: { body: ProjectCreate } }, async (request, reply) => {
    const caller = await callerToken(ctx, request);
    requireAdmin(ctx, caller, 'identity:create_project');
    const body = request.body.project;
    if (body.is_domain === true) throw ksErrors.badRequest('Projects acting as domains are not simulated.');
    const domainId = body.domain_id ?? caller.projectDomain?.id ?? caller.domain?.id ?? 'default';
    if (body.parent_id != null && body.parent_id !== domainId) {
      throw ksErrors.badRequest('Only top-level projects are simulated (parent_id must be the domain).');
    }
    const id = state.createProject(body.name, {
      domainId,
      ...(body.description !== undefined ? { description: body.description } : {}),
      ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
      ...(body.tags !== undefined ? { tags: body.tags } : {}),
    });
    reply.code(201);
    return { project: renderProject(urls, state.projects.get(id)!) };
  });

  app.get<{ Params: IdParams }>('/v3/projects/:id', async (request) => {
    const caller = await callerToken(ctx, request);
    const project = state.projects.get(request.params.id);
    if (!isAdmin(ctx, caller) && caller.project?.id !== request.params.id) forbidAction('identity:get_project');
    if (!project) throw ksErrors.notFound('project', request.params.id);
    return { project: renderProject(urls, project) };
  });

  app.get<{ Querystring: Query }>('/v3/domains', async (request) => {
    requireAdmin(ctx, await callerToken(ctx, request), 'identity:list_domains');
    const q = request.query;
    const domains = (q.name === undefined ? [...state.domains.values()] : state.domains.by('name', q.name)).filter((d) => matchesEnabled(q, d.enabled));
    return list(urls, '/domains', 'domains', domains.map((d) => renderDomain(urls, d)));
  });

  app.get<{ Params: IdParams }>('/v3/domains/:id', async (request) => {
    const caller = await callerToken(ctx, request);
    if (!isAdmin(ctx, caller) && caller.domain?.id !== request.params.id) forbidAction('identity:get_domain');
    const domain = state.domains.get(request.params.id);
    if (!domain) throw ksErrors.notFound('domain', request.params.id);
    return { domain: renderDomain(urls, domain) };
  });

  app.get<{ Querystring: Query }>('/v3/roles', async (request) => {
    requireAdmin(ctx, await callerToken(ctx, request), 'identity:list_roles');
    const name = request.query.name;
    const roles = name === undefined ? [...state.roles.values()] : state.roles.by('name', name);
    return list(urls, '/roles', 'roles', roles.map((r) => renderRole(urls, r)));
  });

  app.get<{ Params: IdParams }>('/v3/roles/:id', async (request) => {
    requireAdmin(ctx, await callerToken(ctx, request), 'identity:get_role');
    const role = state.roles.get(request.params.id);
    if (!role) throw ksErrors.notFound('role', request.params.id);
    return { role: renderRole(urls, role) };
  });

  /** Resolves the three ids of a grant URL, 404 for any unknown one. */
  function grantTarget(params: GrantParams): { scope: Scope; userId: string; roleId: string } {
    if (!state.projects.has(params.p)) throw ksErrors.notFound('project', params.p);
    if (!state.users.has(params.u)) throw ksErrors.notFound('user', params.u);
    if (!state.roles.has(params.r)) throw ksErrors.notFound('role', params.r);
    return { scope: { kind: 'project', id: params.p }, userId: params.u, roleId: params.r };
  }

  const grantUrl = '/v3/projects/:p/users/:u/roles/:r';
  app.put<{ Params: GrantParams }>(grantUrl, async (request, reply) => {
    requireAdmin(ctx, await callerToken(ctx, request), 'identity:create_grant');
    const g = grantTarget(request.params);
    state.grant(g.userId, g.scope, g.roleId);
    return reply.code(204).send();
  });

  app.get<{ Params: GrantParams }>(grantUrl, async (request, reply) => {
    requireAdmin(ctx, await callerToken(ctx, request), 'identity:check_grant');
    const g = grantTarget(request.params);
    if (!state.directRoleIds(g.userId, g.scope).includes(g.roleId)) throw ksErrors.notFound('role assignment', g.roleId);
    return reply.code(204).send();
  });

  app.delete<{ Params: GrantParams }>(grantUrl, async (request, reply) => {
    requireAdmin(ctx, await callerToken(ctx, request), 'identity:revoke_grant');
    const g = grantTarget(request.params);
    if (!state.ungrant(g.userId, g.scope, g.roleId)) throw ksErrors.notFound('role assignment', g.roleId);
    return reply.code(204).send();
  });

  app.get<{ Params: { p: string; u: string } }>('/v3/projects/:p/users/:u/roles', async (request) => {
    const caller = await callerToken(ctx, request);
    requireAdminOrOwner(ctx, caller, request.params.u, 'identity:list_grants');
    const { p, u } = request.params;
    if (!state.projects.has(p)) throw ksErrors.notFound('project', p);
    const roles = state.directRoleIds(u, { kind: 'project', id: p }).map((id) => state.roles.get(id)!);
    return list(urls, `/projects/${p}/users/${u}/roles`, 'roles', roles.map((r) => renderRole(urls, r)));
  });

  app.get<{ Querystring: Query }>('/v3/role_assignments', async (request) => {
    requireAdmin(ctx, await callerToken(ctx, request), 'identity:list_role_assignments');
    const q = request.query;
    const names = 'include_names' in q && q.include_names !== '0' && q.include_names !== 'false';
    const rows: { a: Assignment; prior?: string }[] = [];
    for (const a of q['user.id'] === undefined ? state.assignments.values() : state.assignmentsOf(q['user.id'])) {
      if ('effective' in q) {
        for (const id of state.expandRoles([a.roleId])) {
          rows.push(id === a.roleId ? { a } : { a: { ...a, roleId: id }, prior: a.roleId });
        }
      } else {
        rows.push({ a });
      }
    }
    const filtered = rows.filter(({ a }) =>
      (q['user.id'] === undefined || a.userId === q['user.id']) &&
      (q['role.id'] === undefined || a.roleId === q['role.id']) &&
      (q['scope.project.id'] === undefined || (a.scope.kind === 'project' && a.scope.id === q['scope.project.id'])) &&
      (q['scope.domain.id'] === undefined || (a.scope.kind === 'domain' && a.scope.id === q['scope.domain.id'])) &&
      (q['scope.system'] === undefined || a.scope.kind === 'system'),
    );
    const body = filtered.map(({ a, prior }) => renderAssignment(ctx, a, names, prior));
    return list(urls, '/role_assignments', 'role_assignments', body);
  });
}

function renderAssignment(ctx: SimContext, a: Assignment, names: boolean, prior?: string): Record<string, unknown> {
  const { state, urls } = ctx;
  const domainRef = (id: string) => ({ id, ...(names ? { name: state.domains.get(id)?.name } : {}) });
  const role = state.roles.get(a.roleId);
  const user = state.users.get(a.userId);
  const scope: Record<string, unknown> = {};
  let target: string;
  if (a.scope.kind === 'project') {
    const project = state.projects.get(a.scope.id);
    scope.project = { id: a.scope.id, ...(names && project ? { name: project.name, domain: domainRef(project.domainId) } : {}) };
    target = `/projects/${a.scope.id}`;
  } else if (a.scope.kind === 'domain') {
    scope.domain = domainRef(a.scope.id);
    target = `/domains/${a.scope.id}`;
  } else {
    scope.system = { all: true };
    target = '/system';
  }
  return {
    role: { id: a.roleId, ...(names && role ? { name: role.name } : {}) },
    user: { id: a.userId, ...(names && user ? { name: user.name, domain: domainRef(user.domainId) } : {}) },
    scope,
    links: {
      assignment: urls.link(`${target}/users/${a.userId}/roles/${prior ?? a.roleId}`),
      ...(prior !== undefined ? { prior_role: urls.link(`/roles/${prior}`) } : {}),
    },
  };
}
