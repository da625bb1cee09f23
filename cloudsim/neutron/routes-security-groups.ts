// /v2.0/security-groups and /v2.0/security-group-rules. A new group comes with two egress
// allow-all rules; each project gets its `default` group lazily (on its first security group
// call or port); rules are validated like Neutron's and a duplicate is a 409.
import type { FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import { SimError } from '../common/errors.js';
import type { RawQuery } from '../common/query.js';
import { callerOf } from '../common/service-app.js';
import { listCollection, selectFields, type Attribute } from './collection.js';
import { formatCidr, isIpv6, parseCidr } from './ip.js';
import type { NeutronState, SecurityGroup, SecurityGroupRule } from './state.js';
import { applyNames, badRequest, bodyOf, bool, checkQuota, checkRevision, conflict, iso, owns, projectFor, renderStandard, str, touch, type Caller } from './writes.js';

export const sgNotFound = (id: string) => new SimError(404, `Security group ${id} does not exist`, 'SecurityGroupNotFound');
const ruleNotFound = (id: string) => new SimError(404, `Security group rule ${id} does not exist`, 'SecurityGroupRuleNotFound');

let standardAttrIds = 0;

function addRule(state: NeutronState, sg: SecurityGroup, r: Partial<SecurityGroupRule> & Pick<SecurityGroupRule, 'direction' | 'ethertype'>): SecurityGroupRule {
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

const RULE_ATTRIBUTES: Record<string, Attribute<SecurityGroupRule>> = {
  id: { get: (r) => r.id, kind: 'string' },
  project_id: { get: (r) => r.projectId, kind: 'string' },
  tenant_id: { get: (r) => r.projectId, kind: 'string' },
  security_group_id: { get: (r) => r.securityGroupId, kind: 'string' },
  direction: { get: (r) => r.direction, kind: 'string' },
  ethertype: { get: (r) => r.ethertype, kind: 'string' },
  protocol: { get: (r) => r.protocol, kind: 'string' },
  port_range_min: { get: (r) => r.portRangeMin, kind: 'int' },
  port_range_max: { get: (r) => r.portRangeMax, kind: 'int' },
  remote_ip_prefix: { get: (r) => r.remoteIpPrefix, kind: 'string' },
  remote_group_id: { get: (r) => r.remoteGroupId, kind: 'string' },
  description: { get: (r) => r.description, kind: 'string' },
};

const PROTOCOLS = ['ah', 'dccp', 'egp', 'esp', 'gre', 'hopopt', 'icmp', 'igmp', 'ipip', 'ipv6-encap', 'ipv6-frag', 'ipv6-icmp', 'icmpv6', 'ipv6-nonxt', 'ipv6-opts', 'ipv6-route', 'ospf', 'pgm', 'rsvp', 'sctp', 'tcp', 'udp', 'udplite', 'vrrp'];
const PORT_PROTOCOLS = ['tcp', 'udp', 'sctp', 'dccp', 'udplite', '6', '17', '132', '33', '136'];
const ICMP_PROTOCOLS = ['icmp', 'ipv6-icmp', 'icmpv6', '1', '58'];

export function registerSecurityGroupRoutes(scope: FastifyInstance, state: NeutronState): void {
  const renderGroup = (g: SecurityGroup) => ({
    ...renderStandard(g),
    stateful: g.stateful,
    shared: false,
    // Embedded, a rule also shows its standard attribute id and tags (Zed's Neutron; not in the rules' own list).
    security_group_rules: state.securityGroupRules.by('group', g.id).map((r) => ({ ...renderRule(r), standard_attr_id: r.standardAttrId ?? 0, tags: [] })),
  });
  const group = (id: string, caller: Caller): SecurityGroup => {
    const g = state.securityGroups.get(id);
    if (!g || !owns(caller, g)) throw sgNotFound(id);
    return g;
  };

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

  scope.get('/v2.0/security-group-rules', async (request) => {
    const caller = callerOf(request);
    ensureDefaultGroup(state, caller.projectId);
    return listCollection(request, {
      name: 'security_group_rules',
      attributes: RULE_ATTRIBUTES,
      items: state.securityGroupRules,
      indexed: { project_id: 'project', tenant_id: 'project', security_group_id: 'group', remote_group_id: 'remote' },
      visible: (r) => owns(caller, r),
      scope: () => (caller.isAdmin ? state.securityGroupRules.values() : state.securityGroupRules.by('project', caller.projectId)),
      render: renderRule,
      notFound: ruleNotFound,
    });
  });

  scope.get<{ Params: { id: string } }>('/v2.0/security-group-rules/:id', async (request) => {
    const caller = callerOf(request);
    const rule = state.securityGroupRules.get(request.params.id);
    if (!rule || !owns(caller, rule)) throw ruleNotFound(request.params.id);
    return { security_group_rule: selectFields(renderRule(rule), request.query as RawQuery) };
  });

  scope.post('/v2.0/security-group-rules', async (request, reply) => {
    const caller = callerOf(request);
    const b = bodyOf(
      request,
      'security_group_rule',
      ['security_group_id', 'direction', 'ethertype', 'protocol', 'port_range_min', 'port_range_max', 'remote_ip_prefix', 'remote_group_id', 'description', 'project_id', 'tenant_id'],
      ['remote_address_group_id', 'normalized_cidr'],
    );
    for (const k of ['security_group_id', 'direction']) {
      if (b[k] === undefined) throw badRequest(`Failed to parse request. Required attribute '${k}' not specified`);
    }
    const sg = group(String(b.security_group_id), caller);
    if (b.direction !== 'ingress' && b.direction !== 'egress') {
      throw badRequest(`Invalid input for direction. Reason: '${String(b.direction)}' is not in ['ingress', 'egress'].`);
    }
    const ethertype = b.ethertype ?? 'IPv4';
    if (ethertype !== 'IPv4' && ethertype !== 'IPv6') throw badRequest(`Invalid input for ethertype. Reason: '${String(ethertype)}' is not in ['IPv4', 'IPv6'].`);
    const protocol = normalProtocol(b.protocol);
    const [min, max] = portRange(protocol, b.port_range_min, b.port_range_max);
    if (b.remote_ip_prefix != null && b.remote_group_id != null) {
      throw badRequest('Only remote_ip_prefix or remote_group_id may be provided.', 'SecurityGroupRemoteGroupAndRemoteIpPrefix');
    }
    let prefix: string | null = null;
    if (b.remote_ip_prefix != null) {
      const raw = String(b.remote_ip_prefix);
      const v6 = isIpv6(raw);
      if (v6 !== (ethertype === 'IPv6')) {
        throw badRequest(`Conflicting value ethertype ${ethertype} for CIDR ${raw}`, 'SecurityGroupRuleParameterConflict');
      }
      if (v6) prefix = raw.includes('/') ? raw : `${raw}/128`;
      else {
        const c = parseCidr(raw.includes('/') ? raw : `${raw}/32`);
        if (!c) throw badRequest(`Invalid input for remote_ip_prefix. Reason: '${raw}' is not a valid IP subnet.`);
        prefix = formatCidr(c);
      }
    }
    let remoteGroup: string | null = null;
    if (b.remote_group_id != null) remoteGroup = group(String(b.remote_group_id), caller).id;
    const isAny = (p: string | null) => p === null || p === '0.0.0.0/0' || p === '::/0';
    const dup = state.securityGroupRules.by('group', sg.id).find(
      (r) =>
        r.direction === b.direction &&
        r.ethertype === ethertype &&
        r.protocol === protocol &&
        r.portRangeMin === min &&
        r.portRangeMax === max &&
        r.remoteGroupId === remoteGroup &&
        (r.remoteIpPrefix === prefix || (isAny(r.remoteIpPrefix) && isAny(prefix))),
    );
    if (dup) throw conflict('SecurityGroupRuleExists', `Security group rule already exists. Rule id is ${dup.id}.`);
    checkQuota(state, sg.projectId, 'security_group_rule');
    const rule = addRule(state, sg, {
      direction: b.direction,
      ethertype,
      protocol,
      portRangeMin: min,
      portRangeMax: max,
      remoteIpPrefix: prefix,
      remoteGroupId: remoteGroup,
      description: str(b, 'description') ?? '',
    });
    touch(sg);
    return reply.code(201).send({ security_group_rule: renderRule(rule) });
  });

  scope.delete<{ Params: { id: string } }>('/v2.0/security-group-rules/:id', async (request, reply) => {
    const caller = callerOf(request);
    const rule = state.securityGroupRules.get(request.params.id);
    if (!rule || !owns(caller, rule)) throw ruleNotFound(request.params.id);
    state.securityGroupRules.delete(rule.id);
    const sg = state.securityGroups.get(rule.securityGroupId);
    if (sg) touch(sg);
    return reply.code(204).send();
  });
}

function normalProtocol(raw: unknown): string | null {
  if (raw === undefined || raw === null || raw === 'any') return null;
  const s = String(raw).toLowerCase();
  if (PROTOCOLS.includes(s)) return s;
  if (/^\d+$/.test(s) && Number(s) <= 255) return String(Number(s));
  throw badRequest(
    `Security group rule protocol ${String(raw)} not supported. Only protocol values [None, ${PROTOCOLS.join(', ')}] and integer representations [0 to 255] are supported.`,
    'SecurityGroupRuleInvalidProtocol',
  );
}

function portRange(protocol: string | null, rawMin: unknown, rawMax: unknown): [number | null, number | null] {
  const num = (v: unknown, attr: string): number | null => {
    if (v === undefined || v === null) return null;
    const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
    if (typeof n !== 'number' || !Number.isInteger(n)) throw badRequest(`Invalid input for ${attr}. Reason: '${String(v)}' is not an integer.`);
    return n;
  };
  const min = num(rawMin, 'port_range_min');
  const max = num(rawMax, 'port_range_max');
  if (min === null && max === null) return [null, null];
  if (protocol === null) throw badRequest('Must also specify protocol if port range is given.', 'SecurityGroupProtocolRequiredWithPorts');
  if (PORT_PROTOCOLS.includes(protocol)) {
    if (min !== null && max !== null && min > max) {
      throw badRequest('For TCP/UDP protocols, port_range_min must be <= port_range_max', 'SecurityGroupInvalidPortRange');
    }
    for (const p of [min, max]) if (p !== null && (p < 1 || p > 65535)) throw badRequest(`Invalid value for port ${p}.`, 'SecurityGroupInvalidPortValue');
    return [min, max];
  }
  if (ICMP_PROTOCOLS.includes(protocol)) {
    if (min === null && max !== null) {
      throw badRequest(`ICMP code (port-range-max) ${max} is provided but ICMP type (port-range-min) is missing.`, 'SecurityGroupMissingIcmpType');
    }
    for (const [field, attr, v] of [['type', 'port_range_min', min], ['code', 'port_range_max', max]] as const) {
      if (v !== null && (v < 0 || v > 255)) throw badRequest(`Invalid value for ICMP ${field} (${attr}) ${v}. It must be 0 to 255.`, 'SecurityGroupInvalidIcmpValue');
    }
    return [min, max];
  }
  throw badRequest(`Invalid protocol ${protocol} for port range, only supported for TCP, UDP, UDPLITE, SCTP and DCCP.`, 'SecurityGroupInvalidProtocolForPort');
}

