// Octavia without the jobboard (behaviour.jobboard false, Zed's default and its bug): a fully populated create
// activates the load balancer while its listener, pool and members stay PENDING_CREATE for ever (OFFLINE); the
// pool's members and health monitor are then 409 "Pool … is immutable", and the load balancer is not left
// locked by the refusal; objects made one by one settle as usual; the cascade delete takes it all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CloudSeedSchema, defaultSeed } from '../../../cloudsim/seed.js';
import { Value } from '@sinclair/typebox/value';
import { getJson, withSims } from '../support-sims.js';

const t = withSims();
const lbUrl = () => `${t.sims.urls['load-balancer']}/v2/lbaas`;

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${lbUrl()}${path}`, {
    method,
    headers: { accept: 'application/json', 'x-auth-token': t.demo, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json().catch(() => undefined)) as any };
}

async function settled(id: string): Promise<any> {
  for (let i = 0; i < 400; i++) {
    const lb = (await getJson(`${lbUrl()}/loadbalancers/${id}`, t.demo)).body.loadbalancer;
    if (!lb.provisioning_status.startsWith('PENDING_')) return lb;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`load balancer ${id} never settled`);
}

test('a fully populated create leaves its children PENDING_CREATE; their pool refuses members and a monitor', async () => {
  t.sims.octavia.state.behaviour.jobboard = false;
  const subnet = [...t.sims.neutron.state.subnets.values()].find((s) => s.name === 'public-subnet')!.id;
  const made = await call('POST', '/loadbalancers', {
    loadbalancer: {
      name: 'full',
      vip_subnet_id: subnet,
      listeners: [{ name: 'api', protocol: 'TCP', protocol_port: 6443, default_pool: { name: 'api', protocol: 'TCP', lb_algorithm: 'ROUND_ROBIN', members: [{ address: '127.24.4.10', protocol_port: 6443 }] } }],
    },
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const lb = await settled(made.body.loadbalancer.id);
  assert.equal(lb.provisioning_status, 'ACTIVE');
  const [listener] = (await call('GET', `/listeners?loadbalancer_id=${lb.id}`)).body.listeners;
  const [pool] = (await call('GET', `/pools?loadbalancer_id=${lb.id}`)).body.pools;
  const [member] = (await call('GET', `/pools/${pool.id}/members`)).body.members;
  for (const o of [listener, pool, member]) assert.deepEqual([o.provisioning_status, o.operating_status], ['PENDING_CREATE', 'OFFLINE']);

  const monitor = await call('POST', '/healthmonitors', { healthmonitor: { pool_id: pool.id, type: 'TCP', delay: 5, timeout: 3, max_retries: 3 } });
  assert.equal(monitor.status, 409);
  assert.equal(monitor.body.faultstring, `Pool ${pool.id} is immutable and cannot be updated.`);
  assert.equal((await call('POST', `/pools/${pool.id}/members`, { member: { address: '127.24.4.11', protocol_port: 6443 } })).status, 409);
  assert.equal((await getJson(`${lbUrl()}/loadbalancers/${lb.id}`, t.demo)).body.loadbalancer.provisioning_status, 'ACTIVE', 'a refusal does not lock the load balancer');

  // One by one, objects settle; the abandoned ones stay as they are.
  const other = await call('POST', '/listeners', { listener: { loadbalancer_id: lb.id, protocol: 'TCP', protocol_port: 22 } });
  assert.equal(other.status, 201);
  await settled(lb.id);
  assert.equal((await call('GET', `/listeners/${other.body.listener.id}`)).body.listener.provisioning_status, 'ACTIVE');
  assert.equal((await call('GET', `/listeners/${listener.id}`)).body.listener.provisioning_status, 'PENDING_CREATE');

  assert.equal((await call('DELETE', `/loadbalancers/${lb.id}?cascade=true`)).status, 204);
  for (let i = 0; i < 400 && t.sims.octavia.state.loadbalancers.has(lb.id); i++) await new Promise((r) => setTimeout(r, 25));
  assert.equal(t.sims.octavia.state.loadbalancers.has(lb.id), false);
  assert.equal(t.sims.octavia.state.pools.has(pool.id), false);
});

test('with the jobboard (the default) the same create settles whole', async () => {
  t.sims.octavia.state.behaviour.jobboard = true;
  const subnet = [...t.sims.neutron.state.subnets.values()].find((s) => s.name === 'public-subnet')!.id;
  const made = await call('POST', '/loadbalancers', {
    loadbalancer: { name: 'full-2', vip_subnet_id: subnet, listeners: [{ protocol: 'TCP', protocol_port: 6443, default_pool: { protocol: 'TCP', lb_algorithm: 'ROUND_ROBIN' } }] },
  });
  const lb = await settled(made.body.loadbalancer.id);
  const [pool] = (await call('GET', `/pools?loadbalancer_id=${lb.id}`)).body.pools;
  assert.equal(pool.provisioning_status, 'ACTIVE');
  assert.equal((await call('POST', '/healthmonitors', { healthmonitor: { pool_id: pool.id, type: 'TCP', delay: 5, timeout: 3, max_retries: 3 } })).status, 201);
  await call('DELETE', `/loadbalancers/${lb.id}?cascade=true`);
});

test('the seed file names the mode (octavia_jobboard, default true)', () => {
  assert.equal(defaultSeed().octavia_jobboard, true);
  assert.ok(Value.Check(CloudSeedSchema, { octavia_jobboard: false }));
  assert.ok(!Value.Check(CloudSeedSchema, { octavia_jobboard: 'no' }));
});
