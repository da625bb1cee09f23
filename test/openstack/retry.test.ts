// Retries (src/openstack/retry.ts): the backoff arithmetic, and the behaviour against the simulators' fault
// injection (which failures may be retried is errors.ts' table: test/openstack/errors.test.ts): 5xx and
// timeouts retried for GET/PUT/DELETE only, POSTs never repeated after an ambiguous failure, Octavia's
// 409 while PENDING_* and Neutron's 409 *InUse on delete retried, Retry-After honoured, every attempt
// recorded and counted.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { DEFAULT_DELAYS } from '../../cloudsim/common/clock.js';
import { requestJson, type CallRecord } from '../../src/openstack/http.js';
import { OpenStackMetrics } from '../../src/openstack/metrics.js';
import { NeutronClient } from '../../src/openstack/neutron.js';
import { OctaviaClient } from '../../src/openstack/octavia.js';
import { retryDelay, type RetryPolicy } from '../../src/openstack/retry.js';
import { failure } from '../support/openstack.js';
import { waitFor } from '../support/http.js';
import { FAST_RETRY, startCloud, statuses, type Cloud } from './cloud.js';

describe('backoff', () => {
  const policy: RetryPolicy = { maxAttempts: 9, baseDelayMs: 100, multiplier: 2, maxDelayMs: 1000, jitter: 0.5, budgetMs: 60_000 };
  const cases: { retry: number; random: number; retryAfterMs?: number; ms: number }[] = [
    { retry: 1, random: 0, ms: 100 },
    { retry: 2, random: 0, ms: 200 },
    { retry: 4, random: 0, ms: 800 },
    { retry: 5, random: 0, ms: 1000 }, // capped
    { retry: 1, random: 1, ms: 50 }, // at most half taken off by jitter
    { retry: 3, random: 0.5, ms: 300 },
    { retry: 1, random: 0, retryAfterMs: 700, ms: 700 }, // Retry-After wins when longer
    { retry: 4, random: 0, retryAfterMs: 100, ms: 800 },
    { retry: 1, random: 0, retryAfterMs: 5000, ms: 1000 }, // but never beyond the cap
  ];
  for (const c of cases) {
    test(`retry ${c.retry}, random ${c.random}${c.retryAfterMs !== undefined ? `, Retry-After ${c.retryAfterMs}` : ''} → ${c.ms} ms`, () => {
      assert.equal(retryDelay(policy, c.retry, c.retryAfterMs, () => c.random), c.ms);
    });
  }
});

describe('against the simulators', () => {
  let cloud: Cloud;
  before(async () => {
    cloud = await startCloud();
  });
  after(() => cloud.close());

  test('a GET is retried through two 503s, under one global request id, each attempt recorded', async () => {
    const calls: CallRecord[] = [];
    const neutron = new NeutronClient(await cloud.session('demo', 'network', { calls, retry: FAST_RETRY }));
    cloud.sims.neutron.state.faults.inject({ status: 503, method: 'GET', path: '/v2.0/networks', times: 2 });
    assert.equal((await neutron.listNetworks({ name: 'public' })).length, 1);
    assert.deepEqual(statuses(calls), [503, 503, 200]);
    assert.deepEqual(calls.map((c) => c.attempt), [1, 2, 3]);
    assert.deepEqual(calls.map((c) => c.kind), ['server', 'server', undefined]);
    assert.equal(new Set(calls.map((c) => c.globalRequestId)).size, 1);
    assert.equal(new Set(calls.map((c) => c.requestId)).size, 3, 'each answer has its own request id');
    assert.ok(calls.every((c) => c.operation === 'networks.list' && c.service === 'network'));
  });

  test('a POST is not repeated after a 503, nor after a lost answer: the caller looks up what it left', async () => {
    const calls: CallRecord[] = [];
    const neutron = new NeutronClient(await cloud.session('demo', 'network', { calls, retry: FAST_RETRY }));
    cloud.sims.neutron.state.faults.inject({ status: 503, method: 'POST', path: '/v2.0/networks', times: 1 });
    const e = await failure(() => neutron.networks.create({ name: 'retry-post-503' }));
    assert.deepEqual([e.status, e.kind, e.retryable], [503, 'server', true]);
    assert.deepEqual(statuses(calls), [503]);
    assert.deepEqual(await neutron.listNetworks({ name: 'retry-post-503' }), [], 'a refused POST created nothing');

    calls.length = 0;
    cloud.sims.neutron.state.faults.inject({ action: 'lost', method: 'POST', path: '/v2.0/networks', times: 1 });
    const lost = await failure(() => neutron.networks.create({ name: 'retry-post-lost' }));
    assert.equal(lost.kind, 'unreachable');
    assert.equal(calls.filter((c) => c.method === 'POST').length, 1, 'not sent twice');
    const [found] = await neutron.listNetworks({ name: 'retry-post-lost' });
    assert.ok(found, 'the lost POST did create the network: found by name, not created again');
    assert.equal(await neutron.networks.delete(found.id), true);
  });

  test('a GET is retried after a timeout; a policy of one attempt does not retry', async () => {
    const calls: CallRecord[] = [];
    const neutron = new NeutronClient(await cloud.session('demo', 'network', { calls, retry: FAST_RETRY, timeoutMs: 150 }));
    cloud.sims.neutron.state.faults.inject({ delayMs: 600, path: '/v2.0/networks', times: 1 });
    assert.equal((await neutron.listNetworks({ name: 'public' })).length, 1);
    assert.deepEqual(calls.map((c) => c.kind), ['timeout', undefined]);

    const once = new NeutronClient(await cloud.session('demo', 'network'));
    cloud.sims.neutron.state.faults.inject({ status: 502, path: '/v2.0/networks', times: 1 });
    assert.equal((await failure(() => once.listNetworks())).status, 502);
  });

  test('gives up after maxAttempts, and never retries a 404 or a 400', async () => {
    const calls: CallRecord[] = [];
    const session = await cloud.session('demo', 'network', { calls, retry: { ...FAST_RETRY, maxAttempts: 3 } });
    const neutron = new NeutronClient(session);
    const clear = cloud.sims.neutron.state.faults.inject({ status: 500, path: '/v2.0/routers' });
    try {
      assert.equal((await failure(() => neutron.routers.list())).status, 500);
      assert.deepEqual(statuses(calls), [500, 500, 500]);
    } finally {
      clear();
    }
    calls.length = 0;
    assert.equal((await failure(() => neutron.getNetwork('00000000-0000-4000-8000-000000000000'))).status, 404);
    assert.equal((await failure(() => requestJson(session, { path: '/v2.0/networks', query: { colour: 'blue' } }))).status, 400);
    assert.deepEqual(statuses(calls), [404, 400]);
  });

  test("Octavia's 409 while the load balancer is PENDING_* is retried, even for a POST", async (t) => {
    const calls: CallRecord[] = [];
    const clock = cloud.sims.octavia.state.clock;
    clock.setDelay('octavia.loadbalancer.create', { kind: 'fixed', ms: 300_000 });
    t.after(() => clock.setDelay('octavia.loadbalancer.create', DEFAULT_DELAYS['octavia.loadbalancer.create']));
    const session = await cloud.session('demo', 'load-balancer', { calls, retry: { ...FAST_RETRY, maxAttempts: 20, maxDelayMs: 100 } });
    const octavia = new OctaviaClient(session);
    const neutron = new NeutronClient(await cloud.session('demo', 'network'));
    const net = await neutron.networks.create({ name: 'retry-lb-net' });
    const subnet = await neutron.subnets.create({ network_id: net.id, ip_version: 4, cidr: '10.77.0.0/24' });
    const lb = await octavia.createLoadBalancer({ name: 'retry-lb', vip_subnet_id: subnet.id });
    assert.equal(lb.provisioning_status, 'PENDING_CREATE');
    const listener = await octavia.listeners.create({ loadbalancer_id: lb.id, protocol: 'TCP', protocol_port: 6443 });
    assert.equal(listener.protocol_port, 6443);
    const creates = statuses(calls, 'listeners.create');
    assert.ok(creates.length >= 2 && creates.slice(0, -1).every((s) => s === 409) && creates.at(-1) === 201, `attempts: ${creates}`);
    await waitFor(() => octavia.provisioningStatus(lb.id), (s) => s === 'ACTIVE');
    assert.equal(await octavia.deleteLoadBalancer(lb.id), true);
    await waitFor(() => octavia.provisioningStatus(lb.id), (s) => s === 'DELETED');
    await neutron.subnets.delete(subnet.id);
    await neutron.networks.delete(net.id);
  });

  test("Neutron's 409 SubnetInUse on a delete is retried while the port goes away", async () => {
    const calls: CallRecord[] = [];
    const neutron = new NeutronClient(await cloud.session('demo', 'network', { calls, retry: { ...FAST_RETRY, maxAttempts: 10 } }));
    const net = await neutron.networks.create({ name: 'retry-inuse' });
    const subnet = await neutron.subnets.create({ network_id: net.id, ip_version: 4, cidr: '10.78.0.0/24' });
    const port = await neutron.ports.create({ network_id: net.id, device_id: 'vm-going-away', device_owner: 'compute:nova' });
    setTimeout(() => void neutron.ports.delete(port.id), 150);
    assert.equal(await neutron.subnets.delete(subnet.id), true);
    const attempts = statuses(calls, 'subnets.delete');
    assert.equal(attempts[0], 409);
    assert.equal(attempts.at(-1), 204);
    assert.equal(await neutron.networks.delete(net.id), true);
  });

  test('the metrics observer counts attempts by status, their latency and the retries', async () => {
    const registry = new Registry();
    const metrics = new OpenStackMetrics(registry);
    const neutron = new NeutronClient(await cloud.session('demo', 'network', { metrics, retry: FAST_RETRY }));
    cloud.sims.neutron.state.faults.inject({ status: 503, method: 'GET', path: '/v2.0/networks', times: 2 });
    await neutron.listNetworks({ name: 'public' });
    const count = async (status: string) =>
      (await metrics.calls.get()).values.find((v) => v.labels.status === status && v.labels.operation === 'networks.list' && v.labels.service === 'network')?.value;
    assert.equal(await count('503'), 2);
    assert.equal(await count('200'), 1);
    assert.equal((await metrics.retries.get()).values[0]?.value, 2);
    const text = await registry.metrics();
    assert.match(text, /openstack_request_duration_seconds_count\{service="network",operation="networks.list",outcome="server"\} 2/);
    assert.match(text, /openstack_request_duration_seconds_count\{service="network",operation="networks.list",outcome="ok"\} 1/);
  });
});

test('a 429 is retried (any method) after its Retry-After', async () => {
  let hits = 0;
  const srv = createServer((_req, res) => {
    hits++;
    if (hits === 1) res.writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' }).end('{"overLimit":{"code":429,"message":"slow down"}}');
    else res.writeHead(201, { 'content-type': 'application/json', 'x-openstack-request-id': 'req-ok' }).end('{"ok":true}');
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  try {
    const started = Date.now();
    const res = await requestJson<{ ok: boolean }>(
      { service: 'compute', baseUrl: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`, token: 't', timeoutMs: 2000, retry: { ...FAST_RETRY, maxDelayMs: 2000 } },
      { method: 'POST', path: '/servers', body: {} },
    );
    assert.equal(res.body.ok, true);
    assert.equal(hits, 2);
    assert.ok(Date.now() - started >= 950, 'waited for Retry-After: 1');
  } finally {
    srv.close();
  }
});
