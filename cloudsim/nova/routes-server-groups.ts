// /v2.1/os-server-groups (spec openstack-apis §2.8): create with `policies` (one item, soft ones
// from 2.15) or, from 2.64, `policy` and `rules`; list pages with limit/offset (all_projects for
// admins); show; delete (204). Members join only through the `group` hint at server create.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { SimError } from '../common/errors.js';
import { one, parseBool, type RawQuery } from '../common/query.js';
import { callerOf } from '../common/service-app.js';
import { atLeast, versionOf, type Version } from './microversion.js';
import { checkServerGroupQuota } from './quota.js';
import { POLICIES, type Policy, type ServerGroup } from './server-groups.js';
import type { NovaState } from './state.js';
import { bodyObject, checkKeys, checkName, checkType, invalidInput, pyRepr, type Obj } from './validate.js';

function render(state: NovaState, g: ServerGroup, v: Version): Record<string, unknown> {
  const members = g.members.filter((id) => {
    const s = state.servers.get(id);
    return s !== undefined && s.vmState !== 'deleted';
  });
  const body: Record<string, unknown> = { id: g.id, name: g.name };
  if (atLeast(v, 64)) Object.assign(body, { policy: g.policy, rules: { ...g.rules } });
  else Object.assign(body, { policies: [g.policy], metadata: {} });
  body.members = members;
  if (atLeast(v, 13)) Object.assign(body, { project_id: g.projectId, user_id: g.userId });
  return body;
}

/** The policy of a create body, checked by the schema of its version. */
function policyOf(sg: Obj, v: Version): { policy: Policy; rules: ServerGroup['rules'] } {
  const allowed = atLeast(v, 15) ? [...POLICIES] : ['anti-affinity', 'affinity'];
  if (atLeast(v, 64)) {
    checkKeys('server_group', sg, ['name', 'policy', 'rules'], ['name', 'policy']);
    if (!allowed.includes(sg.policy as string)) throw invalidInput('policy', sg.policy, `${pyRepr(sg.policy)} is not one of ${pyRepr(allowed)}`);
    const rules: ServerGroup['rules'] = {};
    if (sg.rules !== undefined) {
      checkType('rules', sg.rules, 'object');
      checkKeys('rules', sg.rules as Obj, ['max_server_per_host']);
      const max = (sg.rules as Obj).max_server_per_host;
      if (max !== undefined) {
        if (!/^\d+$/.test(String(max)) || Number(max) < 1) throw invalidInput('max_server_per_host', max, `${pyRepr(max)} is less than the minimum of 1`);
        rules.max_server_per_host = Number(max);
      }
      if (Object.keys(sg.rules as Obj).length > 0 && sg.policy !== 'anti-affinity') throw new SimError(400, 'Only anti-affinity policy supports rules.');
    }
    return { policy: sg.policy as Policy, rules };
  }
  checkKeys('server_group', sg, ['name', 'policies'], ['name', 'policies']);
  checkType('policies', sg.policies, 'array');
  const policies = sg.policies as unknown[];
  if (policies.length !== 1) throw invalidInput('policies', policies, `${pyRepr(policies)} is ${policies.length === 0 ? 'too short' : 'too long'}`);
  if (!allowed.includes(policies[0] as string)) throw invalidInput('policies', policies[0], `${pyRepr(policies[0])} is not one of ${pyRepr(allowed)}`);
  return { policy: policies[0] as Policy, rules: {} };
}

function nonNegative(q: RawQuery, key: string): number | undefined {
  const raw = one(q, key);
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw)) throw new SimError(400, `Invalid input for query parameters ${key}. Value: ${raw}. '${raw}' does not match '^[0-9]*$'`);
  return Number(raw);
}

export function registerServerGroupRoutes(scope: FastifyInstance, state: NovaState): void {
  const find = (request: FastifyRequest<{ Params: { id: string } }>): ServerGroup => {
    const caller = callerOf(request);
    const g = state.serverGroups.get(request.params.id);
    if (!g || !(caller.isAdmin || g.projectId === caller.projectId)) throw new SimError(404, `Instance group ${request.params.id} could not be found.`);
    return g;
  };

  scope.post('/v2.1/os-server-groups', async (request) => {
    const v = versionOf(request);
    const caller = callerOf(request);
    const body = bodyObject(request.body);
    checkKeys(undefined, body, ['server_group'], ['server_group']);
    checkType('server_group', body.server_group, 'object');
    const sg = body.server_group as Obj;
    const { policy, rules } = policyOf(sg, v);
    const name = checkName('name', sg.name);
    checkServerGroupQuota(state.quotaOf(caller.projectId), state.usage(caller.projectId).server_groups);
    const group: ServerGroup = { id: randomUUID(), name, policy, rules, members: [], projectId: caller.projectId, userId: caller.userId, createdAt: state.clock.now() };
    state.serverGroups.set(group.id, group);
    return { server_group: render(state, group, v) };
  });

  scope.get('/v2.1/os-server-groups', async (request) => {
    const caller = callerOf(request);
    const q = request.query as RawQuery;
    const everyone = caller.isAdmin && parseBool(one(q, 'all_projects') ?? 'false') === true;
    const offset = nonNegative(q, 'offset') ?? 0;
    const limit = Math.min(nonNegative(q, 'limit') ?? state.maxLimit, state.maxLimit);
    const groups = (everyone ? [...state.serverGroups.values()] : state.serverGroups.by('project', caller.projectId))
      .sort((a, b) => a.createdAt - b.createdAt)
      .slice(offset, offset + limit);
    return { server_groups: groups.map((g) => render(state, g, versionOf(request))) };
  });

  scope.get<{ Params: { id: string } }>('/v2.1/os-server-groups/:id', async (request) => ({ server_group: render(state, find(request), versionOf(request)) }));

  scope.delete<{ Params: { id: string } }>('/v2.1/os-server-groups/:id', async (request, reply) => {
    state.serverGroups.delete(find(request).id);
    return reply.code(204).send();
  });
}
