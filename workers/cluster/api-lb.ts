// The API endpoint (k8s-bootstrap §1.3): an Octavia load balancer on the cluster subnet (its VIP
// is known as soon as the POST answers, so servers boot while it builds) created in one graph with
// its listener TCP 6443, pool and one member per control-plane port (the ports are made first); the
// health monitor after, while it is ACTIVE (children an Octavia without the jobboard leaves PENDING under an ACTIVE
// load balancer are deleted and built again one at a time); a later change (a missing child, members after a
// resize or an upgrade) one at a time while ACTIVE; a floating IP on the VIP port when asked. Without a load balancer the
// endpoint is the single control plane's port, and its floating IP (when it has one) the address everything uses,
// moved to a replacement control plane by the roll (moveApiFloatingIp). The address is recorded on the cluster at once.
// The delete removes it, and those OCCM made for the cluster's Services, before the servers.
import { networkPlan, type LoadBalancerPlan } from '../../src/cluster-spec/network-plan.js';
import type { Listener, LoadBalancer, OctaviaClient, Pool } from '../../src/openstack/octavia.js';
import { OpenStackError } from '../../src/openstack/errors.js';
import { StepFailure, Wait } from '../../src/steps/errors.js';
import { clusterDescription, clusterTag, resourceName } from '../../src/steps/naming.js';
import type { RunContext, Step } from '../../src/steps/step.js';
import { clusterNet, clusterSpec } from '../../src/steps/context.js';
import { ensure } from '../../src/steps/ensure.js';
import { apiFloatingIp, ensureFloatingIp } from './floating-ips.js';
import { controlPlanePorts } from './ports.js';
import { masterCount, type BillInput } from '../../src/preflight/quotas.js';

export interface Endpoint {
  /** kubeadm's controlPlaneEndpoint: the VIP (or the single control plane's fixed IP). */
  internal: string;
  /** What users and the worker reach: the floating IP, else `internal`. */
  external: string;
  /** The Neutron port the floating IP points at. */
  portId: string;
  loadBalancerId?: string;
}

function plan(ctx: RunContext): Promise<LoadBalancerPlan | null> {
  return ctx.memo('lb-plan', async () => networkPlan(await clusterSpec(ctx, (await clusterNet(ctx)).subnetCidr)).loadBalancer);
}

/** The recorded API load balancer (undefined before it was made). */
async function recordedLb(ctx: RunContext, o: OctaviaClient): Promise<LoadBalancer | undefined> {
  const row = (await ctx.ledger.live('loadbalancer')).find((r) => r.name === resourceName(ctx.cluster, 'kubeapi'));
  return row ? o.getLoadBalancer(row.cloud_id) : undefined;
}

async function ensureLoadBalancer(ctx: RunContext, lb: LoadBalancerPlan): Promise<LoadBalancer> {
  const o = await ctx.cloud().octavia();
  const net = await clusterNet(ctx);
  const name = resourceName(ctx.cluster, 'kubeapi');
  const found = await ensure(ctx, {
    step: 'api_lb', service: 'load-balancer', type: 'loadbalancer', name,
    get: (id) => o.getLoadBalancer(id),
    findByName: () => o.listLoadBalancers({ name }),
    // One graph create (Octavia's fully populated load balancer): the listener, the pool and the
    // control planes' members (their ports are made first) are built with it, not one update at a time.
    create: async () => {
      const tags = [clusterTag(ctx.cluster.uuid)];
      const members = [...(await wantedMembers(ctx))].map(([address, portName]) => ({ address, protocol_port: lb.memberPort, subnet_id: net.subnetId, name: `${portName}-6443`, tags }));
      const child = resourceName(ctx.cluster, 'kubeapi-6443');
      return o.createLoadBalancer({
        name, description: clusterDescription(ctx.cluster.uuid), vip_subnet_id: net.subnetId, provider: lb.provider, tags,
        listeners: [{
          name: child, protocol: lb.listener.protocol, protocol_port: lb.listener.port, tags,
          ...(lb.listener.allowedCidrs.length > 0 ? { allowed_cidrs: lb.listener.allowedCidrs } : {}),
          default_pool: { name: child, protocol: lb.pool.protocol, lb_algorithm: lb.pool.algorithm, tags, members },
        }],
      });
    },
  });
  return found;
}

/** The endpoint, made if needed (load balancer POST and floating IP; not waiting for ACTIVE). */
export function endpoint(ctx: RunContext): Promise<Endpoint> {
  // Made once, its addresses fixed: learnt once for all the operation's runs in this process.
  return ctx.memoRuns('endpoint', async () => {
    const lb = await plan(ctx);
    let ep: Endpoint;
    if (lb) {
      const made = await ensureLoadBalancer(ctx, lb);
      if (made.provisioning_status === 'ERROR') throw new StepFailure('LoadBalancerError', `The API load balancer ${made.id} is in ERROR.`, 'api_lb');
      ep = { internal: made.vip_address!, external: made.vip_address!, portId: made.vip_port_id!, loadBalancerId: made.id };
    } else {
      const ports = await controlPlanePorts(ctx);
      // The control plane that holds the API's floating IP keeps it (a roll moved it to a replacement), else the first.
      const holder = (await clusterSpec(ctx)).apiServer.floatingIp ? (await apiFloatingIp(ctx))?.port_id : undefined;
      const first = ports.find((p) => p.port.id === holder) ?? ports[0];
      if (!first) throw new StepFailure('InvalidRequest', 'The cluster has no control-plane node.', 'api_lb');
      const ip = first.port.fixed_ips?.[0]?.ip_address;
      ep = { internal: ip!, external: ip!, portId: first.port.id };
    }
    if ((await clusterSpec(ctx)).apiServer.floatingIp) {
      const fip = await ensureFloatingIp(ctx, ep.portId);
      ep.external = fip.floating_ip_address!;
      // Without a load balancer the floating IP is the stable endpoint: kubeadm's controlPlaneEndpoint, which a
      // replacement control plane joins through and which moves to it (moveApiFloatingIp).
      if (!lb) ep.internal = ep.external;
    }
    const address = `https://${ep.external}:6443`;
    if (ctx.cluster.api_address !== address) {
      await ctx.repos.clusters.update(ctx.cluster.uuid, { api_address: address });
      ctx.cluster = { ...ctx.cluster, api_address: address };
    }
    return ep;
  });
}

/**
 * Without a load balancer, the API's floating IP onto the control plane `name` (a replacement that joined through
 * it): the API's address stays, served by the new control plane before the old one leaves.
 */
export async function moveApiFloatingIp(ctx: RunContext, name: string): Promise<void> {
  ctx.forget('cp-ports');
  const port = (await controlPlanePorts(ctx)).find((p) => p.name === name);
  if (!port) throw new Wait(ctx.pollMs, `the port of ${name} is not found yet`);
  const fip = await ensureFloatingIp(ctx, port.port.id);
  const address = `https://${fip.floating_ip_address}:6443`;
  if (ctx.cluster.api_address !== address) throw new StepFailure('Conflict', `The API's floating IP is ${fip.floating_ip_address}, not the cluster's API address ${ctx.cluster.api_address}.`, 'api_lb');
}

/**
 * Whether the API's floating IP is the first control plane's own: without a load balancer the endpoint is that
 * node's port, and when nodes have floating IPs the one api_endpoint put there is the node's (its server step
 * finds it and makes none).
 */
export function apiFipIsNodes({ spec, groups }: BillInput): boolean {
  return networkPlan(spec).loadBalancer === null && spec.apiServer.floatingIp && spec.nodeOps.floatingIp && masterCount(groups) > 0;
}

export const ensureApiEndpoint: Step = {
  name: 'api_endpoint',
  condition: 'api_lb',
  after: ['ports'],
  /**
   * The load balancer, its VIP port, and what its one graph create makes with it: the listener, the pool and a
   * member per control plane; the API's floating IP, on the VIP or, without a load balancer, on the first control
   * plane's port (made here, before that node's server: the node's own when nodes have theirs, see apiFipIsNodes).
   */
  bill: ({ spec, groups }) => {
    const lb = networkPlan(spec).loadBalancer;
    const apiFip = spec.apiServer.floatingIp && (lb !== null || masterCount(groups) > 0) ? 1 : 0;
    return lb ? { load_balancer: 1, port: 1, listener: 1, pool: 1, member: masterCount(groups), floatingip: apiFip } : { floatingip: apiFip };
  },
  async run(ctx) {
    if (ctx.cluster.conditions.api_lb?.status === 'True') return;
    const ep = await endpoint(ctx);
    await ctx.setCondition('api_lb', 'Unknown', 'Creating', `API endpoint ${ep.external}${ep.loadBalancerId ? ` (load balancer ${ep.loadBalancerId} being built)` : ''}.`);
  },
};

/**
 * While a load balancer is first built (PENDING_CREATE), how many polls pass between two looks: an amphora takes a
 * minute or more (the simulator's median is 90 s), and nothing on the way to the API waits for it before the first
 * control plane's boot and kubeadm init (100 s), so in production it is read every 10 s.
 */
const LB_BUILD_POLLS = 5;
/** How many polls a build may take before the condition says the load balancer is stuck (3 minutes in production). */
const LB_STUCK_POLLS = 90;

/** ACTIVE, or Wait (PENDING_*), or a failure (ERROR). */
async function activeLb(ctx: RunContext, o: OctaviaClient, id: string): Promise<void> {
  const status = await o.provisioningStatus(id);
  if (status === 'ACTIVE') return;
  if (status === 'ERROR') throw new StepFailure('LoadBalancerError', `The API load balancer ${id} went to ERROR.`, 'api_lb');
  if (status === 'DELETED') throw new StepFailure('NotFound', `The API load balancer ${id} disappeared.`, 'api_lb');
  const since = await ctx.memoRuns(`lb-pending:${id}:${status}`, async () => Date.now());
  if (Date.now() - since < ctx.pollMs * LB_STUCK_POLLS) {
    throw new Wait(ctx.pollMs * (status === 'PENDING_CREATE' ? LB_BUILD_POLLS : 1), status === 'PENDING_CREATE' ? `load balancer ${id} is being built` : `load balancer ${id} is ${status}`);
  }
  // In one PENDING_* state longer than a build takes: the condition says so, as a cloud error does.
  if (ctx.cluster.conditions.api_lb?.reason !== 'LoadBalancerPending') {
    await ctx.setCondition('api_lb', 'Unknown', 'LoadBalancerPending', `The API load balancer ${id} stays ${status}, longer than a build takes (a few minutes): Octavia has not finished it. Still waiting.`);
  }
  throw new Wait(ctx.pollMs, `load balancer ${id} is ${status}`);
}

/** Listener, pool and monitor, one at a time while the load balancer is ACTIVE. */
export const ensureApiListener: Step = {
  name: 'api_listener',
  condition: 'api_lb',
  after: ['api_endpoint'],
  // Made with the load balancer (api_endpoint's bill): this step finds them, or makes what a lost graph create did not.
  async run(ctx) {
    const lb = await plan(ctx);
    if (!lb || ctx.cluster.conditions.api_lb?.status === 'True') return;
    const o = await ctx.cloud().octavia();
    const ep = await endpoint(ctx);
    const lbId = ep.loadBalancerId!;
    const name = resourceName(ctx.cluster, 'kubeapi-6443');
    const tags = [clusterTag(ctx.cluster.uuid)];
    // Its children are judged once the load balancer is ACTIVE (read after it: a child Octavia finished is ACTIVE
    // with it); one made now is not judged before the load balancer is ACTIVE again.
    await activeLb(ctx, o, lbId);
    const child = async <T extends { id: string; name?: string | null; provisioning_status?: string }>(type: string, list: () => Promise<T[]>, create: () => Promise<T>, get: (id: string) => Promise<T>): Promise<T> => {
      const rows = await ctx.ledger.live(type);
      if (rows[0]) return get(rows[0].cloud_id);
      // Made with the load balancer (graph create): found and recorded at once, even while it builds. One being
      // deleted (a stuck one, below) is not adopted; one made here is recorded as made one by one, and waited for.
      return ensure(ctx, {
        step: 'api_lb', service: 'load-balancer', type, name, get,
        findByName: async () => (await list()).filter((r) => !GONE.has(r.provisioning_status ?? '')).map((r) => ({ ...r, description: ctx.cluster.uuid })),
        create: async () => {
          await activeLb(ctx, o, lbId);
          const made = await create();
          await ctx.hooks.afterCreate?.(type, made.id);
          // The load balancer is PENDING_UPDATE now: what follows waits for it.
          await ctx.ledger.record({ service: 'load-balancer', type, cloudId: made.id, name, step: ONE_BY_ONE });
          throw new Wait(ctx.pollMs, `${type} ${made.id} being made`);
        },
      });
    };
    const listener = await child('listener',
      () => o.listeners.list({ name, loadbalancer_id: lbId }),
      () => o.listeners.create({ name, loadbalancer_id: lbId, protocol: lb.listener.protocol, protocol_port: lb.listener.port, tags, ...(lb.listener.allowedCidrs.length > 0 ? { allowed_cidrs: lb.listener.allowedCidrs } : {}) }),
      (id) => o.listeners.get(id));
    // A stuck listener goes (after its pool) before a pool is made on it.
    await rebuildStuckListener(ctx, o, lbId, listener);
    const pool = await child('pool',
      () => o.pools.list({ name, loadbalancer_id: lbId }),
      () => o.pools.create({ name, listener_id: listener.id, protocol: lb.pool.protocol, lb_algorithm: lb.pool.algorithm, tags }),
      (id) => o.pools.get(id));
    await rebuildStuckPool(ctx, o, lbId, pool);
  },
};

/** The ledger's step of the children made one at a time (not with the load balancer). */
const ONE_BY_ONE = 'api_lb_one_by_one';
const GONE = new Set(['PENDING_DELETE', 'DELETED']);
const pending = (o: { provisioning_status?: string | null }) => (o.provisioning_status ?? '').startsWith('PENDING_');

/**
 * Octavia Zed without the jobboard (its default) activates a fully populated load balancer but leaves its listener,
 * pool and members PENDING_CREATE for ever: nothing can be added under them (409 "immutable") and no traffic flows.
 * Seen once the load balancer is ACTIVE, they are deleted (the pool with its members; a stuck listener after its
 * pool), one change at a time while it is ACTIVE (only the load balancer's state is asked for that), and built
 * again one at a time (ensureApiListener's lookups, then syncMembers). Children made one at a time that stay
 * PENDING as well fail the create with the reason: no retry would change it.
 */
async function rebuildStuckListener(ctx: RunContext, o: OctaviaClient, lbId: string, listener: Listener): Promise<void> {
  if (!pending(listener)) return;
  const what = `The API load balancer ${lbId} is ACTIVE but its listener ${listener.id} stays ${listener.provisioning_status}`;
  if ((await ctx.ledger.live('listener')).some((r) => r.cloud_id === listener.id && r.step === ONE_BY_ONE)) throw stuckFailure(what);
  const pool = (await ctx.ledger.live('pool'))[0];
  await ctx.event('LoadBalancerChildrenStuck', 'Rebuilding', `${what} (Octavia without the jobboard): its children are built again one at a time.`, 'warning');
  await ctx.setCondition('api_lb', 'Unknown', 'LoadBalancerRebuilding', `${what} (Octavia without the jobboard): its children are built again one at a time.`);
  if (pool) {
    await o.pools.delete(pool.cloud_id);
    await ctx.ledger.markDeleted('load-balancer', 'pool', pool.cloud_id);
    throw new Wait(ctx.pollMs, `pool ${pool.cloud_id} going before its stuck listener`);
  }
  await o.listeners.delete(listener.id);
  await ctx.ledger.markDeleted('load-balancer', 'listener', listener.id);
  throw new Wait(ctx.pollMs, `stuck listener ${listener.id} being deleted`);
}

async function rebuildStuckPool(ctx: RunContext, o: OctaviaClient, lbId: string, pool: Pool): Promise<void> {
  const members = await o.listMembers(pool.id);
  const stuck = [pool, ...members].filter(pending);
  if (stuck.length === 0) return;
  const what = `The API load balancer ${lbId} is ACTIVE but its ${pending(pool) ? `pool ${pool.id}` : `pool's members ${stuck.map((m) => m.id).join(', ')}`} stay ${stuck[0]!.provisioning_status}`;
  if ((await ctx.ledger.live('pool')).some((r) => r.cloud_id === pool.id && r.step === ONE_BY_ONE)) throw stuckFailure(what);
  await ctx.event('LoadBalancerChildrenStuck', 'Rebuilding', `${what} (Octavia without the jobboard): the pool is built again one step at a time.`, 'warning');
  await ctx.setCondition('api_lb', 'Unknown', 'LoadBalancerRebuilding', `${what} (Octavia without the jobboard): the pool is built again one step at a time.`);
  await o.pools.delete(pool.id);
  await ctx.ledger.markDeleted('load-balancer', 'pool', pool.id);
  await ctx.ledger.markTypeDeleted('healthmonitor');
  throw new Wait(ctx.pollMs, `stuck pool ${pool.id} being deleted`);
}

const stuckFailure = (what: string) =>
  new StepFailure('LoadBalancerStuck', `${what} although built one at a time: Octavia's worker does not finish them (see its log).`, 'api_lb');

/** The pool's health monitor, after the members: traffic flows without it, so it is not on the way to /readyz. */
export const ensureApiMonitor: Step = {
  name: 'api_monitor',
  condition: 'api_lb',
  after: ['api_members'],
  bill: ({ spec }) => (networkPlan(spec).loadBalancer?.monitor ? { health_monitor: 1 } : {}),
  async run(ctx) {
    const lb = await plan(ctx);
    if (!lb?.monitor || (await ctx.ledger.live('healthmonitor')).length > 0) return;
    const o = await ctx.cloud().octavia();
    const lbId = (await endpoint(ctx)).loadBalancerId!;
    const pool = (await ctx.ledger.live('pool'))[0];
    if (!pool) throw new StepFailure('NotFound', 'The API pool is not recorded.', 'api_lb');
    const name = resourceName(ctx.cluster, 'kubeapi-6443');
    const m = lb.monitor;
    await ensure(ctx, {
      step: 'api_lb', service: 'load-balancer', type: 'healthmonitor', name,
      get: (id) => o.healthMonitors.get(id),
      findByName: async () => (await o.healthMonitors.list({ name, pool_id: pool.cloud_id })).map((r) => ({ ...r, description: ctx.cluster.uuid })),
      create: async () => {
        await activeLb(ctx, o, lbId);
        try {
          return await o.healthMonitors.create({ name, pool_id: pool.cloud_id, type: m.type, delay: m.delay, timeout: m.timeout, max_retries: m.maxRetries, max_retries_down: m.maxRetriesDown, tags: [clusterTag(ctx.cluster.uuid)] });
        } catch (e) {
          // "Pool … is immutable" with the load balancer ACTIVE: the pool is stuck, asking again changes nothing.
          if (e instanceof OpenStackError && e.status === 409 && (await o.provisioningStatus(lbId)) === 'ACTIVE') throw stuckFailure(`The API load balancer ${lbId} is ACTIVE but its pool ${pool.cloud_id} refuses a health monitor (${e.fault.message ?? e.message})`);
          throw e;
        }
      },
    });
  },
};

/** One member per control-plane port (added before that node joins, k8s-bootstrap §1.3). */
export const ensureApiMembers: Step = {
  name: 'api_members',
  condition: 'api_lb',
  after: ['api_listener', 'ports'],
  // The control planes' members come with the load balancer's graph create (api_endpoint's bill); this step adds those it lacks.
  async run(ctx) {
    const lb = await plan(ctx);
    if (!lb) {
      if (ctx.cluster.conditions.api_lb?.status !== 'True') await ctx.setCondition('api_lb', 'True', 'Ready', `API at ${ctx.cluster.api_address} (no load balancer).`);
      return;
    }
    await syncMembers(ctx);
    if (ctx.cluster.conditions.api_lb?.status !== 'True') await ctx.setCondition('api_lb', 'True', 'Ready', `API load balancer ready at ${ctx.cluster.api_address}.`);
  },
};

/** Member address → port name: the control-plane ports' addresses on the cluster subnet (those `keep` says stay). */
async function wantedMembers(ctx: RunContext, keep: (portName: string) => boolean = () => true): Promise<Map<string, string>> {
  const net = await clusterNet(ctx);
  const wanted = new Map<string, string>();
  for (const p of await controlPlanePorts(ctx)) {
    const ip = p.port.fixed_ips?.find((f) => f.subnet_id === net.subnetId)?.ip_address;
    if (ip && keep(p.port.name ?? '')) wanted.set(ip, p.port.name ?? ip);
  }
  return wanted;
}

/**
 * The pool's members made exactly the control-plane ports' addresses (those `keep` says stay):
 * one change at a time while the load balancer is ACTIVE, waiting otherwise. The missing members
 * come first, then the unwanted ones go: a control plane replaced while its successor's member was
 * never added (its POST failed, its run ended) must not leave the pool, and the API, without one.
 */
export async function syncMembers(ctx: RunContext, keep: (portName: string) => boolean = () => true): Promise<void> {
  const lb = await plan(ctx);
  if (!lb) return;
  const o = await ctx.cloud().octavia();
  const ep = await endpoint(ctx);
  const poolRow = (await ctx.ledger.live('pool'))[0];
  if (!poolRow) throw new Wait(ctx.pollMs, 'the API pool is not made yet');
  // Every change, and the end, need it ACTIVE: while it builds, one look at its status is all.
  await activeLb(ctx, o, ep.loadBalancerId!);
  const net = await clusterNet(ctx);
  const wanted = await wantedMembers(ctx, keep);
  const present = await o.listMembers(poolRow.cloud_id);
  const have = new Set(present.map((m) => m.address));
  for (const [address, portName] of wanted) {
    if (have.has(address)) continue;
    await activeLb(ctx, o, ep.loadBalancerId!);
    await o.createMember(poolRow.cloud_id, { address, protocol_port: lb.memberPort, subnet_id: net.subnetId, name: `${portName}-6443`, tags: [clusterTag(ctx.cluster.uuid)] });
    throw new Wait(ctx.pollMs, `member ${address} being added`);
  }
  for (const m of present) {
    if (wanted.has(m.address!)) continue;
    await activeLb(ctx, o, ep.loadBalancerId!);
    await o.deleteMember(poolRow.cloud_id, m.id);
    throw new Wait(ctx.pollMs, `member ${m.address} being removed`);
  }
  await activeLb(ctx, o, ep.loadBalancerId!);
}
