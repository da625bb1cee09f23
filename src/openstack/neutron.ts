// Neutron v2.0 (spec openstack-apis §3): networks, subnets, routers (interfaces, external
// gateway), ports, security groups and rules, floating IPs, tags and quota usage. Lists take
// exact-match filters (a repeated filter is an OR) and follow `<collection>_links` next.
// Only ports take tags at create, and only where ML2's tag_ports_during_bulk_creation extension driver is on
// (Debian's Zed has it off); tag the others, and ports the answer shows untagged, right after (replaceTags / addTag).
import type { components, operations } from '../../openapi/openstack/neutron.js';
import { Collection, versionPrefix } from './collection.js';
import { requestJson, type Session } from './http.js';

type S = components['schemas'];
type Filters<Op extends keyof operations> = NonNullable<operations[Op]['parameters']['query']>;

export type NeutronNetwork = S['Network'];
export type NetworkFilters = Filters<'listNetworks'>;
export type NeutronSubnet = S['Subnet'];
export type NeutronRouter = S['Router'];
export type NeutronPort = S['Port'];
export type PortFilters = Filters<'listPorts'>;
export type SecurityGroup = S['SecurityGroup'];
export type SecurityGroupRule = S['SecurityGroupRule'];
export type FloatingIp = S['FloatingIp'];
export type RouterInterface = S['RouterInterface'];
export type ExternalGateway = S['ExternalGatewayInfo'];
export type TaggableResource = S['TaggableResource'];
export type QuotaDetails = S['QuotaDetails'];

export class NeutronClient {
  readonly networks: Collection<NeutronNetwork, S['NetworkCreate'], NetworkFilters>;
  readonly subnets: Collection<NeutronSubnet, S['SubnetCreate'], Filters<'listSubnets'>>;
  readonly routers: Collection<NeutronRouter, S['RouterCreate'], Filters<'listRouters'>, S['RouterUpdate']>;
  readonly ports: Collection<NeutronPort, S['PortCreate'], PortFilters, S['PortUpdate']>;
  readonly securityGroups: Collection<SecurityGroup, S['SecurityGroupCreate'], Filters<'listSecurityGroups'>>;
  readonly securityGroupRules: Collection<SecurityGroupRule, S['SecurityGroupRuleCreate'], Filters<'listSecurityGroupRules'>>;
  readonly floatingIps: Collection<FloatingIp, S['FloatingIpCreate'], Filters<'listFloatingIps'>, S['FloatingIpUpdate']>;
  private readonly v2: string;

  constructor(private readonly session: Session) {
    // Catalog URLs are unversioned (http://h:9696); tolerate one ending in /v2.0.
    this.v2 = versionPrefix(session.baseUrl, 'v2.0');
    const of = (plural: string, singular: string) => ({ path: `${this.v2}/${plural}`, singular, plural: plural.replace(/-/g, '_'), name: plural });
    this.networks = new Collection(session, of('networks', 'network'));
    this.subnets = new Collection(session, of('subnets', 'subnet'));
    this.routers = new Collection(session, of('routers', 'router'));
    this.ports = new Collection(session, of('ports', 'port'));
    this.securityGroups = new Collection(session, of('security-groups', 'security_group'));
    this.securityGroupRules = new Collection(session, of('security-group-rules', 'security_group_rule'));
    this.floatingIps = new Collection(session, of('floatingips', 'floatingip'));
  }

  /** GET /v2.0/networks/{id}: 404 (OpenStackError not_found) when missing or not visible. */
  getNetwork(id: string): Promise<NeutronNetwork> {
    return this.networks.get(id);
  }

  /** GET /v2.0/networks with filters, following `next` links through every page. */
  listNetworks(filters: NetworkFilters = {}): Promise<NeutronNetwork[]> {
    return this.networks.list(filters);
  }

  /** Attaches a subnet (its gateway IP) or a port; 400 when the subnet is already on this router. */
  addRouterInterface(routerId: string, what: { subnet_id: string } | { port_id: string }): Promise<RouterInterface> {
    return this.routerInterface(routerId, 'add', what);
  }

  /** Detaches a subnet or port; 404 when it is not attached, 409 while floating IPs use it. */
  removeRouterInterface(routerId: string, what: { subnet_id: string } | { port_id: string }): Promise<RouterInterface> {
    return this.routerInterface(routerId, 'remove', what);
  }

  /** Sets the router's external gateway, or clears it with null (409 while floating IPs use it). */
  setRouterGateway(routerId: string, gateway: ExternalGateway | null): Promise<NeutronRouter> {
    return this.routers.update(routerId, { external_gateway_info: gateway });
  }

  /** Points a floating IP at a port (404 when no router links the port's subnet to its network). */
  associateFloatingIp(id: string, portId: string, fixedIp?: string): Promise<FloatingIp> {
    return this.floatingIps.update(id, { port_id: portId, ...(fixedIp !== undefined ? { fixed_ip_address: fixedIp } : {}) });
  }

  disassociateFloatingIp(id: string): Promise<FloatingIp> {
    return this.floatingIps.update(id, { port_id: null });
  }

  /**
   * POST /v2.0/security-group-rules with `security_group_rules`: the rules of one group made at once, all or
   * none (409 SecurityGroupRuleExists when one is already there, DuplicateSecurityGroupRuleInPost for two alike).
   */
  async createSecurityGroupRules(rules: S['SecurityGroupRuleCreate'][]): Promise<SecurityGroupRule[]> {
    const body: { security_group_rules: S['SecurityGroupRuleCreate'][] } = { security_group_rules: rules };
    const res = await requestJson<{ security_group_rules: SecurityGroupRule[] }>(this.session, {
      method: 'POST', path: `${this.v2}/security-group-rules`, body, operation: 'security-group-rules.create_bulk',
    });
    return res.body.security_group_rules;
  }

  /** PUT /v2.0/{resource}/{id}/tags: replaces all tags (at most 50). */
  async replaceTags(resource: TaggableResource, id: string, tags: string[]): Promise<string[]> {
    const body: S['Tags'] = { tags };
    const res = await requestJson<S['Tags']>(this.session, { method: 'PUT', path: this.tagsPath(resource, id), body, operation: `${resource}.tags.replace` });
    return res.body.tags;
  }

  /** PUT /v2.0/{resource}/{id}/tags/{tag}: adds one tag (201 even when already there). */
  async addTag(resource: TaggableResource, id: string, tag: string): Promise<void> {
    await requestJson(this.session, { method: 'PUT', path: `${this.tagsPath(resource, id)}/${encodeURIComponent(tag)}`, operation: `${resource}.tags.add` });
  }

  /** GET /v2.0/quotas/{project}/details: limit, used and reserved per resource (-1 = unlimited). */
  async quotaDetails(projectId: string): Promise<QuotaDetails> {
    const res = await requestJson<{ quota: QuotaDetails }>(this.session, { path: `${this.v2}/quotas/${encodeURIComponent(projectId)}/details`, operation: 'quotas.details' });
    return res.body.quota;
  }

  private async routerInterface(routerId: string, action: 'add' | 'remove', body: S['RouterInterfaceRequest']): Promise<RouterInterface> {
    const res = await requestJson<RouterInterface>(this.session, {
      method: 'PUT',
      path: `${this.v2}/routers/${encodeURIComponent(routerId)}/${action}_router_interface`,
      body,
      operation: `routers.${action}_interface`,
      // An action, not a state: repeated after a lost answer it fails (400 already there, 404 gone).
      idempotent: false,
    });
    return res.body;
  }

  private tagsPath(resource: TaggableResource, id: string): string {
    return `${this.v2}/${resource}/${encodeURIComponent(id)}/tags`;
  }
}
