// Octavia v2 (spec openstack-apis §4): load balancers (optionally created with their whole tree in
// one call), listeners, pools, members, health monitors and the project quota. Every mutation
// makes the load balancer PENDING_UPDATE, and Octavia answers 409 to the next one until it is
// ACTIVE again: the session's retry policy repeats those (any method, since nothing was done),
// and provisioningStatus() is the one-GET poll a worker step uses to decide "again in N s".
import type { components, operations } from '../../openapi/openstack/octavia.js';
import { Collection } from './collection.js';
import { isNotFound } from './errors.js';
import { requestJson, type Session } from './http.js';

type S = components['schemas'];
type Filters<Op extends keyof operations> = NonNullable<operations[Op]['parameters']['query']>;

export type LoadBalancer = S['LoadBalancer'];
export type LoadBalancerCreate = S['LoadBalancerCreate'];
export type Listener = S['Listener'];
export type Pool = S['Pool'];
export type Member = S['Member'];
export type MemberCreate = S['MemberCreate'];
export type HealthMonitor = S['HealthMonitor'];
export type LoadBalancerQuota = S['Quota'];
/** What the API shows, plus DELETED for a load balancer that answers 404. */
export type ProvisioningStatus = S['ProvisioningStatus'];

export class OctaviaClient {
  readonly loadBalancers: Collection<LoadBalancer, LoadBalancerCreate, Filters<'listLoadBalancers'>>;
  readonly listeners: Collection<Listener, S['ListenerCreate'], Filters<'listListeners'>>;
  readonly pools: Collection<Pool, S['PoolCreate'], Filters<'listPools'>>;
  readonly healthMonitors: Collection<HealthMonitor, S['HealthMonitorCreate'], Filters<'listHealthMonitors'>>;
  private readonly root: string;

  constructor(private readonly session: Session) {
    // Catalog URLs are unversioned (http://h:9876); tolerate one ending in /v2 or /v2.0.
    this.root = `${/\/v2(\.0)?\/?$/.test(session.baseUrl) ? '' : '/v2'}/lbaas`;
    const of = (plural: string, singular: string) => ({ path: `${this.root}/${plural}`, singular, plural, name: plural });
    this.loadBalancers = new Collection(session, of('loadbalancers', 'loadbalancer'));
    this.listeners = new Collection(session, of('listeners', 'listener'));
    this.pools = new Collection(session, of('pools', 'pool'));
    this.healthMonitors = new Collection(session, of('healthmonitors', 'healthmonitor'));
  }

  /** POST: the VIP port exists in the answer (vip_port_id, vip_address); the LB is PENDING_CREATE. */
  createLoadBalancer(body: LoadBalancerCreate): Promise<LoadBalancer> {
    return this.loadBalancers.create(body);
  }

  getLoadBalancer(id: string): Promise<LoadBalancer> {
    return this.loadBalancers.get(id);
  }

  listLoadBalancers(filters: Filters<'listLoadBalancers'> = {}): Promise<LoadBalancer[]> {
    return this.loadBalancers.list(filters);
  }

  /** DELETE, with cascade by default (its listeners and pools go too); false when already gone. */
  deleteLoadBalancer(id: string, opts: { cascade?: boolean } = {}): Promise<boolean> {
    return this.loadBalancers.delete(id, { cascade: opts.cascade ?? true });
  }

  /** The load balancer's provisioning_status now, DELETED once it answers 404. */
  async provisioningStatus(id: string): Promise<ProvisioningStatus> {
    try {
      return (await this.loadBalancers.get(id)).provisioning_status;
    } catch (e) {
      if (isNotFound(e)) return 'DELETED';
      throw e;
    }
  }

  createMember(poolId: string, body: MemberCreate): Promise<Member> {
    return this.members(poolId).create(body);
  }

  listMembers(poolId: string): Promise<Member[]> {
    return this.members(poolId).list();
  }

  deleteMember(poolId: string, memberId: string): Promise<boolean> {
    return this.members(poolId).delete(memberId);
  }

  /** PUT .../members: one mutation making the pool's members exactly these (202). */
  async replaceMembers(poolId: string, members: MemberCreate[]): Promise<void> {
    await requestJson(this.session, { method: 'PUT', path: this.membersPath(poolId), body: { members }, operation: 'members.replace' });
  }

  /** GET /v2/lbaas/quotas/{project}: the project's limits (-1 = unlimited). */
  async quota(projectId: string): Promise<LoadBalancerQuota> {
    const res = await requestJson<{ quota: LoadBalancerQuota }>(this.session, { path: `${this.root}/quotas/${encodeURIComponent(projectId)}`, operation: 'quotas.get' });
    return res.body.quota;
  }

  private members(poolId: string): Collection<Member, MemberCreate> {
    return new Collection(this.session, { path: this.membersPath(poolId), singular: 'member', plural: 'members', name: 'members' });
  }

  private membersPath(poolId: string): string {
    return `${this.root}/pools/${encodeURIComponent(poolId)}/members`;
  }
}
