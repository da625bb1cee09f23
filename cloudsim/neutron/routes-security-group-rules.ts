// /v2.0/security-group-rules: list, show, delete, and create one rule or many. A bulk
// (`{"security_group_rules": [...]}`) is ML2's native bulk (neutron/db/securitygroups_db.py,
// create_security_group_rule_bulk_native): every rule of one group (else 400
// SecurityGroupNotSingleGroupRules), each validated as a single create, two alike in the POST a 409
// DuplicateSecurityGroupRuleInPost, one alike an existing rule a 409 SecurityGroupRuleExists, the
// quota counted for all; nothing is made unless all are, and the answer is 201 with every rule.
import type { FastifyInstance } from 'fastify';
import { SimError } from '../common/errors.js';
import type { RawQuery } from '../common/query.js';
import { callerOf } from '../common/service-app.js';
import { listCollection, selectFields, type Attribute } from './collection.js';
import { formatCidr, isIpv6, parseCidr } from './ip.js';
import { addRule, ensureDefaultGroup, ownedGroup, renderRule } from './routes-security-groups.js';
import type { NeutronState, SecurityGroup, SecurityGroupRule } from './state.js';
import { attributesOf, badRequest, bodyOf, checkQuota, conflict, owns, str, touch, type Body, type Caller } from './writes.js';

const ruleNotFound = (id: string) => new SimError(404, `Security group rule ${id} does not exist`, 'SecurityGroupRuleNotFound');

const ALLOWED = ['security_group_id', 'direction', 'ethertype', 'protocol', 'port_range_min', 'port_range_max', 'remote_ip_prefix', 'remote_group_id', 'description', 'project_id', 'tenant_id'];
const KNOWN = ['remote_address_group_id', 'normalized_cidr'];

/** A rule as asked, validated, not yet made. */
type Draft = Pick<SecurityGroupRule, 'direction' | 'ethertype' | 'protocol' | 'portRangeMin' | 'portRangeMax' | 'remoteIpPrefix' | 'remoteGroupId' | 'description'> & { sg: SecurityGroup };

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


export function registerSecurityGroupRuleRoutes(scope: FastifyInstance, state: NeutronState): void {
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
    const raw = request.body as Body | undefined;
    const bulk = raw && typeof raw === 'object' ? raw.security_group_rules : undefined;
    if (bulk === undefined) {
      const [rule] = create(state, [draftOf(state, caller, bodyOf(request, 'security_group_rule', ALLOWED, KNOWN))]);
      return reply.code(201).send({ security_group_rule: renderRule(rule!) });
    }
    if (!Array.isArray(bulk)) throw badRequest('Body contains invalid data');
    if (bulk.length === 0) throw badRequest('Resources required');
    const items = bulk.map((item: unknown) => {
      const inner = item && typeof item === 'object' && 'security_group_rule' in item ? (item as Body).security_group_rule : item;
      if (!inner || typeof inner !== 'object' || Array.isArray(inner)) throw badRequest("Object 'security_group_rule' contains invalid data");
      return attributesOf(inner as Body, true, ALLOWED, KNOWN);
    });
    if (new Set(items.map((b) => String(b.security_group_id))).size > 1) {
      throw badRequest('Only allowed to update rules for one security profile at a time', 'SecurityGroupNotSingleGroupRules');
    }
    if (new Set(items.map((b) => String(b.project_id ?? b.tenant_id ?? caller.projectId))).size > 1) {
      throw badRequest('Multiple tenant_ids in bulk security group rule create not allowed', 'SecurityGroupRulesNotSingleTenant');
    }
    const rules = create(state, items.map((b) => draftOf(state, caller, b)));
    return reply.code(201).send({ security_group_rules: rules.map(renderRule) });
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

/** A rule's body validated as Neutron validates it; nothing is made. */
function draftOf(state: NeutronState, caller: Caller, b: Body): Draft {
  for (const k of ['security_group_id', 'direction']) {
    if (b[k] === undefined) throw badRequest(`Failed to parse request. Required attribute '${k}' not specified`);
  }
  const sg = ownedGroup(state, String(b.security_group_id), caller);
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
  const remoteGroupId = b.remote_group_id != null ? ownedGroup(state, String(b.remote_group_id), caller).id : null;
  return {
    sg, direction: b.direction, ethertype, protocol, portRangeMin: min, portRangeMax: max,
    remoteIpPrefix: prefix, remoteGroupId, description: str(b, 'description') ?? '',
  };
}

const isAny = (p: string | null) => p === null || p === '0.0.0.0/0' || p === '::/0';
const alike = (a: Omit<Draft, 'sg'>, b: Omit<Draft, 'sg'>): boolean =>
  a.direction === b.direction &&
  a.ethertype === b.ethertype &&
  a.protocol === b.protocol &&
  a.portRangeMin === b.portRangeMin &&
  a.portRangeMax === b.portRangeMax &&
  a.remoteGroupId === b.remoteGroupId &&
  (a.remoteIpPrefix === b.remoteIpPrefix || (isAny(a.remoteIpPrefix) && isAny(b.remoteIpPrefix)));

/** All the drafts (of one group) made, or none: the checks come first. */
function create(state: NeutronState, drafts: Draft[]): SecurityGroupRule[] {
  const sg = drafts[0]!.sg;
  checkQuota(state, sg.projectId, 'security_group_rule', drafts.length);
  drafts.forEach((d, i) => {
    if (drafts.slice(0, i).some((e) => alike(d, e))) throw conflict('DuplicateSecurityGroupRuleInPost', 'Duplicate Security Group Rule in POST.');
  });
  for (const existing of state.securityGroupRules.by('group', sg.id)) {
    if (drafts.some((d) => alike(d, existing))) throw conflict('SecurityGroupRuleExists', `Security group rule already exists. Rule id is ${existing.id}.`);
  }
  const rules = drafts.map(({ sg: group, ...d }) => addRule(state, group, d));
  touch(sg);
  return rules;
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

