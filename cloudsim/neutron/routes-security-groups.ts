// /v2.0/security-groups. A new group comes with two egress allow-all rules; each project gets its
// `default` group lazily (on its first security group call or port). Rules: routes-security-group-rules.ts.
import type { FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import { SimError } from '../common/errors.js';
import type { RawQuery } from '../common/query.js';
import { callerOf } from '../common/service-app.js';
import { listCollection, selectFields, type Attribute } from './collection.js';
import type { NeutronState, SecurityGroup, SecurityGroupRule } from './state.js';
import { applyNames, bodyOf, bool, checkQuota, checkRevision, conflict, iso, owns, projectFor, renderStandard, str, touch, type Caller } from './writes.js';

export const sgNotFound = (id: string) => new SimError(404, `Security group ${id} does not exist`, 'SecurityGroupNotFound');

let standardAttrIds = 0;

export function addRule(state: NeutronState, sg: SecurityGroup, r: Partial<SecurityGroupRule> & Pick<SecurityGroupRule, 'direction' | 'ethertype'>): SecurityGroupRule {
  const now = Date.now();
  const rule: SecurityGroupRule = {
    id: randomUUID(),
    projectId: sg.projectId,
    securityGroupId: sg.id,
    protocol: null,
    portRangeMin: null,
    portRangeMax: null,
    remoteIpPrefix: null,
    remoteGroupId: null,
    description: null,
    createdAt: now,
    updatedAt: now,
    revisionNumber: 0,
    standardAttrId: ++standardAttrIds,
    ...r,
  };
  state.securityGroupRules.set(rule.id, rule);
  return rule;
}

function newGroup(state: NeutronState, projectId: string, name: string, description: string): SecurityGroup {
  const sg: SecurityGroup = { ...state.newStandard(projectId), name, description, stateful: true };
  state.securityGroups.set(sg.id, sg);
  addRule(state, sg, { direction: 'egress', ethertype: 'IPv4' });
  addRule(state, sg, { direction: 'egress', ethertype: 'IPv6' });
  return sg;
}

/** The project's `default` group, created on first use with Neutron's four rules. */
export function ensureDefaultGroup(state: NeutronState, projectId: string): SecurityGroup {
  const found = state.securityGroups.first('projectName', `${projectId}|default`);
  if (found) return found;
  const sg = newGroup(state, projectId, 'default', 'Default security group');
  addRule(state, sg, { direction: 'ingress', ethertype: 'IPv4', remoteGroupId: sg.id });
  addRule(state, sg, { direction: 'ingress', ethertype: 'IPv6', remoteGroupId: sg.id });
  return sg;
}

/** The caller's group (an admin's: any), else Neutron's 404. */
export function ownedGroup(state: NeutronState, id: string, caller: Caller): SecurityGroup {
  const g = state.securityGroups.get(id);
  if (!g || !owns(caller, g)) throw sgNotFound(id);
  return g;
}

export function renderRule(r: SecurityGroupRule): Record<string, unknown> {
  return {
    id: r.id,
    project_id: r.projectId,
    tenant_id: r.projectId,
    security_group_id: r.securityGroupId,
    direction: r.direction,
    ethertype: r.ethertype,
    protocol: r.protocol,
    port_range_min: r.portRangeMin,
    port_range_max: r.portRangeMax,
    remote_ip_prefix: r.remoteIpPrefix,
    remote_group_id: r.remoteGroupId,
    remote_address_group_id: null,
    normalized_cidr: r.remoteIpPrefix,
    description: r.description,
    created_at: iso(r.createdAt),
    updated_at: iso(r.updatedAt),
    revision_number: r.revisionNumber,
  };
}

const SG_ATTRIBUTES: Record<string, Attribute<SecurityGroup>> = {
  id: { get: (g) => g.id, kind: 'string' },
  name: { get: (g) => g.name, kind: 'string' },
  project_id: { get: (g) => g.projectId, kind: 'string' },
  tenant_id: { get: (g) => g.projectId, kind: 'string' },
  description: { get: (g) => g.description, kind: 'string' },
  stateful: { get: (g) => g.stateful, kind: 'bool' },
  revision_number: { get: (g) => g.revisionNumber, kind: 'int' },
};

export function registerSecurityGroupRoutes(scope: FastifyInstance, state: NeutronState): void {
  const renderGroup = (g: SecurityGroup) => ({
    ...renderStandard(g),
    stateful: g.stateful,
    shared: false,
    // Embedded, a rule also shows its standard attribute id and tags (Zed's Neutron; not in the rules' own list).
    security_group_rules: state.securityGroupRules.by('group', g.id).map((r) => ({ ...renderRule(r), standard_attr_id: r.standardAttrId ?? 0, tags: [] })),
  });
  const group = (id: string, caller: Caller): SecurityGroup => ownedGroup(state, id, caller);

  scope.get('/v2.0/security-groups', async (request) => {
    const caller = callerOf(request);
    ensureDefaultGroup(state, caller.projectId);
    return listCollection(request, {
      name: 'security_groups',
      attributes: SG_ATTRIBUTES,
      items: state.securityGroups,
      indexed: { name: 'name', project_id: 'project', tenant_id: 'project' },
      tags: { of: (g) => g.tags, index: 'tag' },
      visible: (g) => owns(caller, g),
      scope: () => (caller.isAdmin ? state.securityGroups.values() : state.securityGroups.by('project', caller.projectId)),
      render: renderGroup,
      notFound: sgNotFound,
    });
  });

  scope.get<{ Params: { id: string } }>('/v2.0/security-groups/:id', async (request) => {
    const caller = callerOf(request);
    ensureDefaultGroup(state, caller.projectId);
    return { security_group: selectFields(renderGroup(group(request.params.id, caller)), request.query as RawQuery) };
  });

  scope.post('/v2.0/security-groups', async (request, reply) => {
    const caller = callerOf(request);
    const b = bodyOf(request, 'security_group', ['name', 'description', 'stateful', 'project_id', 'tenant_id'], ['security_group_rules', 'shared']);
    const projectId = projectFor(caller, b);
    ensureDefaultGroup(state, projectId);
    if (str(b, 'name') === 'default') throw conflict('SecurityGroupDefaultAlreadyExists', 'Default security group already exists.');
    checkQuota(state, projectId, 'security_group');
    const sg = newGroup(state, projectId, '', '');
    applyNames(sg, b);
    sg.stateful = bool(b, 'stateful') ?? true;
    state.securityGroups.refile(sg.id);
    return reply.code(201).send({ security_group: renderGroup(sg) });
  });

  scope.put<{ Params: { id: string } }>('/v2.0/security-groups/:id', async (request) => {
    const caller = callerOf(request);
    const sg = group(request.params.id, caller);
    checkRevision(request, sg);
    const b = bodyOf(request, 'security_group', ['name', 'description', 'stateful'], ['security_group_rules', 'shared', 'project_id', 'tenant_id']);
    const name = str(b, 'name');
    if (sg.name === 'default' && name !== undefined && name !== 'default') {
      throw conflict('SecurityGroupCannotUpdateDefault', 'Updating default security group not allowed.');
    }
    if (name === 'default' && sg.name !== 'default') throw conflict('SecurityGroupDefaultAlreadyExists', 'Default security group already exists.');
    applyNames(sg, b);
    const stateful = bool(b, 'stateful');
    if (stateful !== undefined) {
      if (stateful !== sg.stateful && state.ports.count('group', sg.id) > 0) {
        throw conflict('SecurityGroupInUse', `Security Group ${sg.id} in use.`);
      }
      sg.stateful = stateful;
    }
    touch(sg);
    state.securityGroups.refile(sg.id);
    return { security_group: renderGroup(sg) };
  });

  scope.delete<{ Params: { id: string } }>('/v2.0/security-groups/:id', async (request, reply) => {
    const caller = callerOf(request);
    const sg = group(request.params.id, caller);
    checkRevision(request, sg);
    if (sg.name === 'default' && !caller.isAdmin) {
      throw conflict('SecurityGroupCannotRemoveDefault', 'Insufficient rights for removing default security group.');
    }
    const byPort = state.ports.count('group', sg.id) > 0;
    const byRule = state.securityGroupRules.by('remote', sg.id).some((r) => r.securityGroupId !== sg.id);
    if (byPort || byRule) throw conflict('SecurityGroupInUse', `Security Group ${sg.id} in use.`);
    for (const r of state.securityGroupRules.by('group', sg.id)) state.securityGroupRules.delete(r.id);
    state.securityGroups.delete(sg.id);
    return reply.code(204).send();
  });
}
