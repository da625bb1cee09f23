// What the real-cloud lane (test/scenarios/real-openstack/lane.test.ts) reads of a cluster on the real services:
// the create's bill (its dry-run, what the workers plan to make) and what the cloud holds of the cluster, counted
// the same way, each counted by the cluster's tag where the resource takes tags; and what the project still
// holds after its clusters are gone.
import { clusterTag } from '../../../src/steps/naming.js';
import type { RealOpenStack, Tenant } from './index.js';
import { Session } from './rest.js';

/** Nova filters servers by tags from microversion 2.26 (before, it ignores the filter). */
const NOVA = { 'openstack-api-version': 'compute 2.79' };

export type Kind =
  | 'instances' | 'server_groups' | 'network' | 'subnet' | 'router' | 'port' | 'floatingip' | 'security_group'
  | 'security_group_rule' | 'load_balancer' | 'listener' | 'pool' | 'member' | 'health_monitor';

const KINDS: Kind[] = [
  'instances', 'server_groups', 'network', 'subnet', 'router', 'port', 'floatingip', 'security_group', 'security_group_rule',
  'load_balancer', 'listener', 'pool', 'member', 'health_monitor',
];

export interface ClusterRequest {
  name: string;
  template: string;
  masters: number;
  workers: number;
}

/** The create's bill as its dry-run answers it: what the workers plan to make, by quota. */
export async function plannedBill(apiUrl: string, who: Session, r: ClusterRequest): Promise<Record<Kind, number>> {
  const res = await fetch(`${apiUrl}/v1/dry-run/clusters`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'openstack-api-version': 'container-infra latest', 'x-auth-token': await who.authToken() },
    body: JSON.stringify({ name: r.name, cluster_template_id: r.template, master_count: r.masters, node_count: r.workers }),
  });
  const body = (await res.json()) as { accepted: boolean; errors: unknown[]; bill: { quota: string; needed: number }[] };
  if (res.status !== 200 || !body.accepted) throw new Error(`the dry-run of ${r.name} answered ${res.status}: ${JSON.stringify(body)}`);
  return Object.fromEntries(KINDS.map((k) => [k, body.bill.find((l) => l.quota === k)?.needed ?? 0])) as Record<Kind, number>;
}

/** The cloud's endpoints for a tenant's project. */
export function endpointOf(cloud: RealOpenStack, tenant: Tenant) {
  return (type: 'compute' | 'network' | 'load-balancer') => cloud.endpoints[type].replace('%(project_id)s', tenant.projectId).replace(/\/$/, '');
}

/**
 * What the cloud holds of cluster `uuid`, counted as the bill counts it: servers, networks, subnets, routers,
 * security groups, floating IPs and the load balancer by the cluster's tag; the security groups' rules; server
 * groups by the uuid in their names; the ports on the cluster's network (its nodes', tagged, the router's
 * interface and the load balancer's VIP); the load balancer's listener, pool, members and health monitor from
 * its status tree. `lbReader` may read Octavia (a member under admin_or_owner, load-balancer_member otherwise).
 */
export async function heldByCluster(ep: ReturnType<typeof endpointOf>, member: Session, lbReader: Session, uuid: string): Promise<{ held: Record<Kind, number>; untaggedNodePorts: number; serverStatuses: string[] }> {
  const tag = encodeURIComponent(clusterTag(uuid));
  const net = ep('network');
  const get = async (s: Session, url: string, key: string) => (await s.expect('GET', url, [200], { headers: NOVA })).body[key] as any[];
  const [servers, networks, subnets, routers, groups, fips, serverGroups, lbs] = await Promise.all([
    get(member, `${ep('compute')}/servers/detail?tags=${tag}`, 'servers'),
    get(member, `${net}/v2.0/networks?tags=${tag}`, 'networks'),
    get(member, `${net}/v2.0/subnets?tags=${tag}`, 'subnets'),
    get(member, `${net}/v2.0/routers?tags=${tag}`, 'routers'),
    get(member, `${net}/v2.0/security-groups?tags=${tag}`, 'security_groups'),
    get(member, `${net}/v2.0/floatingips?tags=${tag}`, 'floatingips'),
    get(member, `${ep('compute')}/os-server-groups`, 'server_groups'),
    get(lbReader, `${ep('load-balancer')}/v2/lbaas/loadbalancers?tags=${tag}`, 'loadbalancers'),
  ]);
  const ports = networks.length === 1 ? await get(member, `${net}/v2.0/ports?network_id=${networks[0].id}`, 'ports') : [];
  const tagged = new Set((await get(member, `${net}/v2.0/ports?tags=${tag}`, 'ports')).map((p) => p.id));
  const nodePorts = ports.filter((p) => p.device_owner === '' || p.device_owner.startsWith('compute:'));
  const tree = lbs.length === 1 ? (await lbReader.expect('GET', `${ep('load-balancer')}/v2/lbaas/loadbalancers/${lbs[0].id}/status`, [200])).body.statuses.loadbalancer : undefined;
  const lbPools = tree ? tree.listeners.flatMap((l: any) => l.pools) : [];
  return {
    held: {
      instances: servers.length,
      server_groups: serverGroups.filter((g) => g.name.includes(uuid)).length,
      network: networks.length,
      subnet: subnets.length,
      router: routers.length,
      port: ports.length,
      floatingip: fips.length,
      security_group: groups.length,
      security_group_rule: groups.reduce((n, g) => n + g.security_group_rules.length, 0),
      load_balancer: lbs.length,
      listener: tree?.listeners.length ?? 0,
      pool: lbPools.length,
      member: lbPools.reduce((n: number, p: any) => n + p.members.length, 0),
      health_monitor: lbPools.filter((p: any) => p.health_monitor).length,
    },
    untaggedNodePorts: nodePorts.filter((p) => !tagged.has(p.id)).length,
    serverStatuses: servers.map((s) => s.status),
  };
}

/** What the project still holds after its clusters are gone (each list empty but Neutron's `default` group). */
export async function leftInProject(cloud: RealOpenStack, tenant: Tenant, lbReader: Session, users: Session[]): Promise<Record<string, unknown[]>> {
  const ep = endpointOf(cloud, tenant);
  const admin = new Session(cloud.authUrl, cloud.admin);
  const member = users[0]!;
  const project = `project_id=${tenant.projectId}`;
  const net = ep('network');
  const get = async (s: Session, url: string, key: string) => (await s.expect('GET', url, [200])).body[key] as any[];
  const left: Record<string, unknown[]> = {
    servers: await get(member, `${ep('compute')}/servers/detail`, 'servers'),
    server_groups: await get(member, `${ep('compute')}/os-server-groups`, 'server_groups'),
    load_balancers: (await get(lbReader, `${ep('load-balancer')}/v2/lbaas/loadbalancers`, 'loadbalancers')).filter((l) => l.provisioning_status !== 'DELETED'),
    ports_as_admin: (await get(admin, `${net}/v2.0/ports?${project}`, 'ports')).map((p) => `${p.device_owner} ${p.name}`),
    security_groups_but_default: (await get(member, `${net}/v2.0/security-groups?${project}`, 'security_groups')).filter((g) => g.name !== 'default'),
  };
  for (const kind of ['networks', 'subnets', 'routers', 'floatingips']) left[kind] = await get(member, `${net}/v2.0/${kind}?${project}`, kind);
  for (const [i, s] of users.entries()) {
    const me = (await s.expect('GET', `${cloud.authUrl}/auth/tokens`, [200], { headers: { 'x-subject-token': await s.authToken() } })).body.token.user.id as string;
    left[`application_credentials_of_user_${i + 1}`] = await get(s, `${cloud.authUrl}/users/${me}/application_credentials`, 'application_credentials');
  }
  return left;
}
