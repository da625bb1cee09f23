// /v2/lbaas/loadbalancers: create (a graph create with listeners, pools, members and health
// monitors, the VIP port from Neutron), show, list, update, delete (cascade), the status tree,
// stats and failover.
import type { FastifyInstance } from 'fastify';
import { SimError } from '../common/errors.js';
import { one, parseBool, type RawQuery } from '../common/query.js';
import { callerOf } from '../common/service-app.js';
import { buildListener, buildPool, counts, insertPool, type PoolTree } from './builders.js';
import { listOf } from './list.js';
import { find, type P } from './lookup.js';
import { renderLb, renderLbTree, renderStatusTree } from './render.js';
import type { Listener, LoadBalancer, OctaviaState } from './state.js';
import { bool, list, obj, str, tags, wrapped } from './validate.js';

export function registerLoadBalancerRoutes(scope: FastifyInstance, s: OctaviaState, root: string): void {
  const lbPath = `${root}/loadbalancers`;
  scope.get(lbPath, async (req) => listOf(s, req, { collection: 'loadbalancers', path: lbPath, table: s.loadbalancers, indexed: { vip_address: 'vipAddress', vip_port_id: 'vipPort' }, render: (o) => renderLb(s, o as LoadBalancer) }));
  scope.post(lbPath, async (req, reply) => {
    const caller = callerOf(req);
    const b = wrapped(req.body, 'loadbalancer');
    const subnetId = str(b, 'vip_subnet_id');
    const networkId = str(b, 'vip_network_id');
    const portId = str(b, 'vip_port_id');
    if (!subnetId && !networkId && !portId) {
      throw new SimError(400, 'Validation failure: VIP must contain one of: vip_port_id, vip_network_id, vip_subnet_id.');
    }
    const provider = str(b, 'provider') ?? 'amphora';
    if (!s.enabledProviders.includes(provider)) throw new SimError(400, `Provider '${provider}' is not enabled.`);
    let projectId = caller.projectId;
    const asked = str(b, 'project_id');
    if (asked && asked !== caller.projectId) {
      if (!caller.isAdmin) throw new SimError(403, 'Policy does not allow this request to be performed.');
      projectId = asked;
    }
    const lb: LoadBalancer = {
      ...s.common(projectId, { name: str(b, 'name'), admin_state_up: bool(b, 'admin_state_up'), tags: tags(b) }),
      description: str(b, 'description') ?? '',
      vip_address: '',
      vip_port_id: '',
      vip_subnet_id: '',
      vip_network_id: '',
      vip_qos_policy_id: str(b, 'vip_qos_policy_id') ?? null,
      provider: provider === 'octavia' ? 'amphora' : provider,
      flavor_id: str(b, 'flavor_id') ?? null,
      availability_zone: str(b, 'availability_zone') ?? null,
    };
    // Graph create: listeners (each with an optional default_pool tree) and pools.
    const listeners: Listener[] = [];
    const trees: PoolTree[] = [];
    for (const lb0 of list(b, 'listeners')) {
      const l = buildListener(s, lb, lb0, listeners);
      listeners.push(l);
      const dp = obj(lb0, 'default_pool');
      if (dp) {
        const t = buildPool(s, lb, dp, l);
        l.default_pool_id = t.pool.id;
        // Octavia sets the listener's default pool by an update once the pool exists.
        s.touch(l);
        trees.push(t);
      }
    }
    for (const p of list(b, 'pools')) trees.push(buildPool(s, lb, p, undefined));
    s.checkQuota(projectId, { loadbalancer: 1, listener: listeners.length, ...counts(trees) });
    const port = s.vip.allocate({ projectId, lbId: lb.id, subnetId, networkId, portId, address: str(b, 'vip_address') });
    Object.assign(lb, { vip_address: port.address, vip_port_id: port.id, vip_subnet_id: port.subnetId, vip_network_id: port.networkId });
    s.loadbalancers.set(lb.id, lb);
    for (const l of listeners) s.listeners.set(l.id, l);
    for (const t of trees) insertPool(s, t);
    const fail = s.clock.random.chance(s.behaviour.createErrorFraction);
    // Without the jobboard, Zed's worker builds the load balancer alone: what came with it stays PENDING_CREATE.
    if (!s.behaviour.jobboard) s.abandonChildren(lb.id);
    s.settle(lb, 'octavia.loadbalancer.create', () => {
      if (fail) {
        lb.provisioning_status = 'ERROR';
        s.activateTree(lb.id, 'ERROR');
      } else s.finishTree(lb.id);
    });
    return reply.code(201).send({ loadbalancer: listeners.length + trees.length > 0 ? renderLbTree(s, lb) : renderLb(s, lb) });
  });
  scope.get<P<'id'>>(`${lbPath}/:id`, async (req) => ({ loadbalancer: renderLb(s, find(s, 'loadbalancer', req.params.id, callerOf(req))) }));
  scope.put<P<'id'>>(`${lbPath}/:id`, async (req) => {
    const lb = find<LoadBalancer>(s, 'loadbalancer', req.params.id, callerOf(req));
    const b = wrapped(req.body, 'loadbalancer');
    const name = str(b, 'name');
    const description = str(b, 'description');
    const up = bool(b, 'admin_state_up');
    const t = tags(b);
    s.lock(lb, 'update');
    if (name !== undefined) lb.name = name;
    if (description !== undefined) lb.description = description;
    if (up !== undefined) lb.admin_state_up = up;
    if (t !== undefined) lb.tags = t;
    if ('vip_qos_policy_id' in b) lb.vip_qos_policy_id = str(b, 'vip_qos_policy_id') ?? null;
    s.refile(lb);
    s.settle(lb, 'octavia.loadbalancer.update', () => {});
    return { loadbalancer: renderLb(s, lb) };
  });
  scope.delete<P<'id'> & { Querystring: RawQuery }>(`${lbPath}/:id`, async (req, reply) => {
    const lb = find<LoadBalancer>(s, 'loadbalancer', req.params.id, callerOf(req));
    const cascade = parseBool(one(req.query, 'cascade') ?? 'false') === true;
    const children = s.listenersOf(lb.id).length + s.poolsOf(lb.id).length > 0;
    if (children && !cascade) throw new SimError(400, `Validation failure: Cannot delete Load Balancer ${lb.id} - it has children`);
    s.lock(lb, 'delete');
    for (const o of s.childrenOf(lb.id)) o.provisioning_status = 'PENDING_DELETE';
    s.settle(lb, 'octavia.loadbalancer.delete', () => s.removeLb(lb));
    return reply.code(204).send();
  });
  for (const suffix of ['status', 'statuses']) {
    scope.get<P<'id'>>(`${lbPath}/:id/${suffix}`, async (req) => renderStatusTree(s, find(s, 'loadbalancer', req.params.id, callerOf(req))));
  }
  scope.get<P<'id'>>(`${lbPath}/:id/stats`, async (req) => {
    find(s, 'loadbalancer', req.params.id, callerOf(req));
    return { stats: { bytes_in: 0, bytes_out: 0, active_connections: 0, total_connections: 0, request_errors: 0 } };
  });
  scope.put<P<'id'>>(`${lbPath}/:id/failover`, async (req, reply) => {
    const caller = callerOf(req);
    if (!caller.isAdmin) throw new SimError(403, 'Policy does not allow this request to be performed.');
    const lb = find<LoadBalancer>(s, 'loadbalancer', req.params.id, caller);
    s.lock(lb, 'update');
    s.settle(lb, 'octavia.loadbalancer.update', () => {});
    return reply.code(202).send();
  });
}
