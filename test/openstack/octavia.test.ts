// The Octavia client against the simulator: the API server's load balancer created with its
// whole tree in one call, polled to ACTIVE with provisioningStatus(); children one by one (each
// waiting out PENDING_UPDATE through the retry policy); members replaced in one batch; lists by
// name and tag; the quota; cascade delete down to DELETED.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_DELAYS } from '../../cloudsim/common/clock.js';
import type { CallRecord } from '../../src/openstack/http.js';
import { NeutronClient } from '../../src/openstack/neutron.js';
import { OctaviaClient } from '../../src/openstack/octavia.js';
import { failure } from '../support/openstack.js';
import { waitFor } from '../support/http.js';
import { FAST_RETRY, startCloud, statuses, type Cloud } from './cloud.js';

let cloud: Cloud;
let neutron: NeutronClient;
let octavia: OctaviaClient;
const calls: CallRecord[] = [];
let subnetId: string;
let networkId: string;
before(async () => {
  cloud = await startCloud();
  neutron = new NeutronClient(await cloud.session('demo', 'network'));
  octavia = new OctaviaClient(await cloud.session('demo', 'load-balancer', { calls, retry: { ...FAST_RETRY, maxAttempts: 40, maxDelayMs: 100, budgetMs: 10_000 } }));
  const net = await neutron.networks.create({ name: 'lb-test' });
  networkId = net.id;
  subnetId = (await neutron.subnets.create({ network_id: net.id, ip_version: 4, cidr: '10.10.0.0/24' })).id;
});
after(() => cloud.close());

const active = (id: string) => waitFor(() => octavia.provisioningStatus(id), (s) => s === 'ACTIVE' || s === 'ERROR');

describe('octavia', () => {
  test('the API load balancer in one call: listener, pool, monitor, members; VIP port at once', async () => {
    const lb = await octavia.createLoadBalancer({
      name: 'k8s-api',
      vip_subnet_id: subnetId,
      tags: ['cluster:c1'],
      listeners: [
        {
          protocol: 'TCP',
          protocol_port: 6443,
          default_pool: {
            protocol: 'TCP',
            lb_algorithm: 'ROUND_ROBIN',
            healthmonitor: { type: 'TCP', delay: 10, timeout: 5, max_retries: 3 },
            members: [{ address: '10.10.0.11', protocol_port: 6443, subnet_id: subnetId }],
          },
        },
      ],
    });
    assert.deepEqual([lb.provisioning_status, lb.operating_status, lb.vip_subnet_id, lb.vip_network_id], ['PENDING_CREATE', 'OFFLINE', subnetId, networkId]);
    assert.match(lb.vip_address, /^10\.10\.0\./);
    const vip = await neutron.ports.get(lb.vip_port_id);
    assert.equal(vip.device_owner, 'Octavia');
    assert.equal(await active(lb.id), 'ACTIVE');

    const got = await octavia.getLoadBalancer(lb.id);
    assert.equal(got.listeners.length, 1);
    assert.equal(got.pools.length, 1);
    const [pool] = await octavia.pools.list({ loadbalancer_id: lb.id });
    assert.ok(pool?.healthmonitor_id);
    assert.deepEqual((await octavia.listMembers(pool.id)).map((m) => m.address), ['10.10.0.11']);
    assert.deepEqual((await octavia.listLoadBalancers({ name: 'k8s-api' })).map((l) => l.id), [lb.id]);
    assert.deepEqual((await octavia.listLoadBalancers({ tags: 'cluster:c1' })).map((l) => l.id), [lb.id]);
    assert.deepEqual(await octavia.listLoadBalancers({ tags: 'cluster:nope' }), []);

    // Members replaced in one mutation, then back to ACTIVE.
    await octavia.replaceMembers(pool.id, [
      { address: '10.10.0.12', protocol_port: 6443, subnet_id: subnetId },
      { address: '10.10.0.13', protocol_port: 6443, subnet_id: subnetId },
    ]);
    await active(lb.id);
    assert.deepEqual((await octavia.listMembers(pool.id)).map((m) => m.address).sort(), ['10.10.0.12', '10.10.0.13']);

    // Without cascade a load balancer with children is a 400; with it everything goes.
    const refused = await failure(() => octavia.deleteLoadBalancer(lb.id, { cascade: false }));
    assert.equal(refused.status, 400);
    assert.equal(await octavia.deleteLoadBalancer(lb.id), true);
    assert.ok(['PENDING_DELETE', 'DELETED'].includes(await octavia.provisioningStatus(lb.id)));
    await waitFor(() => octavia.provisioningStatus(lb.id), (s) => s === 'DELETED');
    assert.equal(await octavia.deleteLoadBalancer(lb.id), false, 'already gone');
    assert.equal((await failure(() => neutron.ports.get(lb.vip_port_id))).status, 404, 'the VIP port went with it');
  });

  test('children one by one: each create waits out PENDING_UPDATE through the retry policy', async (t) => {
    calls.length = 0;
    // Slow enough that each next call surely meets the load balancer still PENDING_*, even on a loaded machine
    // (1.5 s and 0.8 s here), within what the client's retries wait out (40 tries, 100 ms apart at most).
    const clock = cloud.sims.octavia.state.clock;
    clock.setDelay('octavia.loadbalancer.create', { kind: 'fixed', ms: 1_500_000 });
    clock.setDelay('octavia.loadbalancer.update', { kind: 'fixed', ms: 800_000 });
    t.after(() => {
      clock.setDelay('octavia.loadbalancer.create', DEFAULT_DELAYS['octavia.loadbalancer.create']);
      clock.setDelay('octavia.loadbalancer.update', DEFAULT_DELAYS['octavia.loadbalancer.update']);
    });
    const lb = await octavia.createLoadBalancer({ name: 'one-by-one', vip_network_id: networkId });
    const listener = await octavia.listeners.create({ loadbalancer_id: lb.id, protocol: 'TCP', protocol_port: 443, name: 'l' });
    const pool = await octavia.pools.create({ listener_id: listener.id, protocol: 'TCP', lb_algorithm: 'ROUND_ROBIN' });
    const hm = await octavia.healthMonitors.create({ pool_id: pool.id, type: 'TLS-HELLO', delay: 5, timeout: 3, max_retries: 2 });
    const member = await octavia.createMember(pool.id, { address: '10.10.0.20', protocol_port: 443, subnet_id: subnetId });
    for (const op of ['listeners.create', 'pools.create', 'healthmonitors.create', 'members.create']) {
      const s = statuses(calls, op);
      assert.equal(s.at(-1), 201, `${op}: ${s}`);
      assert.ok(s.slice(0, -1).every((x) => x === 409), `${op}: only 409s before: ${s}`);
    }
    assert.ok(statuses(calls, 'listeners.create')[0] === 409 && statuses(calls, 'pools.create')[0] === 409, 'each met a PENDING_* load balancer');
    assert.equal((await octavia.pools.get(pool.id)).healthmonitor_id, hm.id);
    assert.equal((await octavia.healthMonitors.get(hm.id)).type, 'TLS-HELLO');
    assert.equal((await octavia.listeners.get(listener.id)).default_pool_id, pool.id);
    await active(lb.id);

    const dup = await failure(() => octavia.listeners.create({ loadbalancer_id: lb.id, protocol: 'TCP', protocol_port: 443 }));
    assert.equal(dup.status, 409, 'a duplicate port is a real conflict, not retried into success');
    assert.equal(await octavia.deleteMember(pool.id, member.id), true);
    await active(lb.id);
    assert.equal(await octavia.healthMonitors.delete(hm.id), true);
    await active(lb.id);
    assert.equal(await octavia.deleteLoadBalancer(lb.id), true);
    await waitFor(() => octavia.provisioningStatus(lb.id), (s) => s === 'DELETED');
  });

  test('quota of the own project; another project\'s is forbidden', async () => {
    const quota = await octavia.quota(cloud.projectId('demo'));
    assert.equal(typeof (quota.load_balancer ?? quota.loadbalancer), 'number');
    assert.equal((await failure(() => octavia.quota(cloud.projectId('other')))).status, 403);
  });

  test('an unknown load balancer is a 404 in the WSME envelope', async () => {
    const e = await failure(() => octavia.getLoadBalancer('00000000-0000-4000-8000-000000000000'));
    assert.equal(e.status, 404);
    assert.match(e.fault.message ?? '', /not found/);
  });
});
