// The Octavia simulator over HTTP (spec openstack-apis §4): the provisioning state machine with
// 409 while PENDING_*, cascade delete, the status tree, graph create, quotas, project scoping,
// tags and pagination, the WSME envelope, fault injection and seeded ERROR outcomes. Time runs a
// thousand times faster (an amphora LB takes ~90 ms).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { startCloudSims, type CloudSims } from '../../cloudsim/cloud.js';
import { BUILTIN_USERS, SERVICE_USER } from '../../cloudsim/embedded.js';
import type { KeystoneSim } from '../../cloudsim/keystone/index.js';
import { passwordToken, startKeystone } from '../support/app.js';
import { call, waitFor } from '../support/http.js';
import { assertFreshIndexes } from './fresh-indexes.js';

let keystone: KeystoneSim;
let sims: CloudSims;
let demo: string;
let other: string;
let admin: string;
let lbUrl: string;

async function start(keystone: KeystoneSim, seed = 42): Promise<CloudSims> {
  return startCloudSims({
    keystone,
    authUrl: `http://127.0.0.1:${(keystone.app.server.address() as AddressInfo).port}/v3`,
    credentials: { username: SERVICE_USER.username, password: SERVICE_USER.password, projectName: SERVICE_USER.project },
    host: '127.0.0.1',
    clock: { timeScale: 0.001, seed },
  });
}

before(async () => {
  keystone = await startKeystone();
  sims = await start(keystone);
  demo = await passwordToken(keystone, 'demo', BUILTIN_USERS.demo.password, 'demo');
  other = await passwordToken(keystone, 'other', BUILTIN_USERS.other.password, 'other');
  admin = await passwordToken(keystone, 'admin', BUILTIN_USERS.admin.password, 'admin');
  lbUrl = `${sims.urls['load-balancer']}/v2/lbaas`;
  // The tests observe PENDING_CREATE, PENDING_UPDATE and PENDING_DELETE over several HTTP calls:
  // drawn delays (as short as 5 ms at this scale) can end before a loaded machine makes them, so
  // these transitions take a fixed 0.3-0.5 s here.
  const clock = sims.octavia.state.clock;
  clock.setDelay('octavia.loadbalancer.create', { kind: 'fixed', ms: 500_000 });
  clock.setDelay('octavia.loadbalancer.update', { kind: 'fixed', ms: 300_000 });
  clock.setDelay('octavia.loadbalancer.delete', { kind: 'fixed', ms: 300_000 });
});
after(async () => {
  assertFreshIndexes(sims);
  await sims.close();
  await keystone.app.close();
});

/** A subnet the VIP can live on: the Neutron simulator's first one. */
function subnetId(cloud: CloudSims = sims): string {
  const first = cloud.neutron.state.subnets.values().next().value;
  assert.ok(first, 'the Neutron simulator seeds a subnet');
  return first.id;
}

const getLb = (id: string, token = demo) => call('GET', `${lbUrl}/loadbalancers/${id}`, token);
const active = (id: string, token = demo) => waitFor(() => getLb(id, token), (r) => r.body?.loadbalancer?.provisioning_status === 'ACTIVE');
const newLb = async (extra: Record<string, unknown> = {}, token = demo) => {
  const r = await call('POST', `${lbUrl}/loadbalancers`, token, { loadbalancer: { vip_subnet_id: subnetId(), ...extra } });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.loadbalancer as Record<string, any>;
};

describe('catalog and version document', () => {
  test('load-balancer (bare) and block-storage (/v3/<project>) are in a project token\'s catalog', async () => {
    const res = await keystone.app.inject({
      method: 'POST',
      url: '/v3/auth/tokens',
      payload: {
        auth: {
          identity: { methods: ['password'], password: { user: { name: 'demo', domain: { id: 'default' }, password: BUILTIN_USERS.demo.password } } },
          scope: { project: { name: 'demo', domain: { id: 'default' } } },
        },
      },
    });
    const token = JSON.parse(res.body).token;
    const urlOf = (type: string) => token.catalog.find((s: { type: string }) => s.type === type)?.endpoints.find((e: { interface: string }) => e.interface === 'public')?.url;
    assert.equal(urlOf('load-balancer'), sims.urls['load-balancer']);
    assert.equal(urlOf('block-storage'), sims.urls['block-storage'].replace('%(project_id)s', token.project.id));
    assert.match(urlOf('block-storage'), /\/v3\/[0-9a-f]{32}$/);
  });

  test('no token: the middleware 401', async () => {
    assert.equal((await call('GET', `${lbUrl}/loadbalancers`, undefined)).status, 401);
  });
});

describe('load balancer state machine', () => {
  test('PENDING_CREATE/OFFLINE with the VIP port in the 201, ACTIVE/ONLINE later; 409 while pending', async () => {
    const lb = await newLb({ name: 'api', tags: ['cluster=c1'] });
    assert.deepEqual([lb.provisioning_status, lb.operating_status], ['PENDING_CREATE', 'OFFLINE']);
    assert.match(lb.vip_address, /^\d+\.\d+\.\d+\.\d+$/);
    assert.match(lb.vip_port_id, /^[0-9a-f-]{36}$/);
    assert.equal(lb.vip_subnet_id, subnetId());
    assert.deepEqual([lb.provider, lb.tags, lb.listeners, lb.pools], ['amphora', ['cluster=c1'], [], []]);
    assert.equal(lb.project_id, lb.tenant_id);
    // The VIP is a real Neutron port: it holds the address and blocks NetworkInUse like on a real cloud.
    const port = sims.neutron.state.ports.get(lb.vip_port_id);
    assert.deepEqual([port?.name, port?.deviceOwner, port?.deviceId, port?.adminStateUp], [`octavia-lb-${lb.id}`, 'Octavia', `lb-${lb.id}`, false]);
    assert.equal(port?.fixedIps[0]?.ipAddress, lb.vip_address);

    const put = await call('PUT', `${lbUrl}/loadbalancers/${lb.id}`, demo, { loadbalancer: { name: 'x' } });
    assert.equal(put.status, 409);
    assert.deepEqual(put.body, { faultcode: 'Client', faultstring: `Invalid state PENDING_CREATE of loadbalancer resource ${lb.id}`, debuginfo: null });
    const child = await call('POST', `${lbUrl}/listeners`, demo, { listener: { loadbalancer_id: lb.id, protocol: 'TCP', protocol_port: 6443 } });
    assert.equal(child.status, 409);
    assert.equal(child.body.faultstring, `Load Balancer ${lb.id} is immutable and cannot be updated.`);
    const del = await call('DELETE', `${lbUrl}/loadbalancers/${lb.id}`, demo);
    assert.equal(del.status, 409);

    const done = await active(lb.id);
    assert.equal(done.body.loadbalancer.operating_status, 'ONLINE');

    // Update: PENDING_UPDATE in the answer, then ACTIVE.
    const upd = await call('PUT', `${lbUrl}/loadbalancers/${lb.id}`, demo, { loadbalancer: { description: 'k8s api' } });
    assert.equal(upd.status, 200);
    assert.equal(upd.body.loadbalancer.provisioning_status, 'PENDING_UPDATE');
    assert.equal((await active(lb.id)).body.loadbalancer.description, 'k8s api');
  });

  test('children one mutation at a time, status tree, cascade delete', async () => {
    const lb = await newLb({ name: 'tree' });
    await active(lb.id);
    const l = await call('POST', `${lbUrl}/listeners`, demo, { listener: { loadbalancer_id: lb.id, protocol: 'TCP', protocol_port: 6443, name: 'k8s' } });
    assert.equal(l.status, 201);
    assert.equal(l.body.listener.provisioning_status, 'PENDING_CREATE');
    assert.equal((await getLb(lb.id)).body.loadbalancer.provisioning_status, 'PENDING_UPDATE');
    const busy = await call('POST', `${lbUrl}/listeners`, demo, { listener: { loadbalancer_id: lb.id, protocol: 'TCP', protocol_port: 22 } });
    assert.equal(busy.status, 409);
    await active(lb.id);
    const dup = await call('POST', `${lbUrl}/listeners`, demo, { listener: { loadbalancer_id: lb.id, protocol: 'TCP', protocol_port: 6443 } });
    assert.equal(dup.status, 409);
    assert.match(dup.body.faultstring, /already using protocol TCP and protocol_port 6443/);

    const bad = await call('POST', `${lbUrl}/pools`, demo, { pool: { listener_id: l.body.listener.id, protocol: 'UDP', lb_algorithm: 'ROUND_ROBIN' } });
    assert.equal(bad.status, 400);
    const p = await call('POST', `${lbUrl}/pools`, demo, { pool: { listener_id: l.body.listener.id, protocol: 'TCP', lb_algorithm: 'ROUND_ROBIN', name: 'masters' } });
    assert.equal(p.status, 201);
    const poolId = p.body.pool.id as string;
    await active(lb.id);
    const m = await call('POST', `${lbUrl}/pools/${poolId}/members`, demo, { member: { address: '10.0.0.11', protocol_port: 6443, name: 'm1' } });
    assert.equal(m.status, 201);
    await active(lb.id);
    assert.equal((await call('GET', `${lbUrl}/pools/${poolId}/members/${m.body.member.id}`, demo)).body.member.operating_status, 'NO_MONITOR');
    const hm = await call('POST', `${lbUrl}/healthmonitors`, demo, { healthmonitor: { pool_id: poolId, type: 'TCP', delay: 5, timeout: 3, max_retries: 3 } });
    assert.equal(hm.status, 201);
    await active(lb.id);
    const hm2 = await call('POST', `${lbUrl}/healthmonitors`, demo, { healthmonitor: { pool_id: poolId, type: 'TCP', delay: 5, timeout: 3, max_retries: 3 } });
    assert.equal(hm2.status, 409);

    const tree = await call('GET', `${lbUrl}/loadbalancers/${lb.id}/status`, demo);
    assert.equal(tree.status, 200);
    const st = { provisioning_status: 'ACTIVE', operating_status: 'ONLINE' };
    assert.deepEqual(tree.body, {
      statuses: {
        loadbalancer: {
          id: lb.id,
          name: 'tree',
          ...st,
          listeners: [
            {
              id: l.body.listener.id,
              name: 'k8s',
              ...st,
              pools: [
                {
                  id: poolId,
                  name: 'masters',
                  ...st,
                  health_monitor: { id: hm.body.healthmonitor.id, name: '', type: 'TCP', ...st },
                  members: [{ id: m.body.member.id, name: 'm1', address: '10.0.0.11', protocol_port: 6443, ...st }],
                },
              ],
            },
          ],
        },
      },
    });
    assert.deepEqual((await call('GET', `${lbUrl}/loadbalancers/${lb.id}/statuses`, demo)).body, tree.body);

    // Batch member replace: one mutation, 202.
    const batch = await call('PUT', `${lbUrl}/pools/${poolId}/members`, demo, {
      members: [
        { address: '10.0.0.12', protocol_port: 6443 },
        { address: '10.0.0.13', protocol_port: 6443 },
      ],
    });
    assert.equal(batch.status, 202);
    await active(lb.id);
    const members = await call('GET', `${lbUrl}/pools/${poolId}/members`, demo);
    assert.deepEqual(members.body.members.map((x: { address: string }) => x.address).sort(), ['10.0.0.12', '10.0.0.13']);

    // Delete needs cascade while children exist.
    const refused = await call('DELETE', `${lbUrl}/loadbalancers/${lb.id}`, demo);
    assert.equal(refused.status, 400);
    assert.equal(refused.body.faultstring, `Validation failure: Cannot delete Load Balancer ${lb.id} - it has children`);
    const gone = await call('DELETE', `${lbUrl}/loadbalancers/${lb.id}?cascade=true`, demo);
    assert.equal(gone.status, 204);
    const pending = await getLb(lb.id);
    assert.equal(pending.body.loadbalancer.provisioning_status, 'PENDING_DELETE');
    const nf = await waitFor(() => getLb(lb.id), (r) => r.status === 404);
    assert.equal(nf.body.faultstring, `Load Balancer ${lb.id} not found.`);
    assert.equal((await call('GET', `${lbUrl}/pools/${poolId}`, demo)).status, 404);
    assert.equal((await call('GET', `${lbUrl}/healthmonitors/${hm.body.healthmonitor.id}`, demo)).status, 404);
  });

  test('graph create: the whole tree in one POST, ACTIVE together; /v2.0 alias', async () => {
    const lb = await newLb({
      name: 'graph',
      listeners: [
        {
          protocol: 'TCP',
          protocol_port: 6443,
          default_pool: {
            protocol: 'TCP',
            lb_algorithm: 'ROUND_ROBIN',
            healthmonitor: { type: 'TLS-HELLO', delay: 10, timeout: 5, max_retries: 3 },
            members: [
              { address: '10.0.0.21', protocol_port: 6443 },
              { address: '10.0.0.22', protocol_port: 6443 },
            ],
          },
        },
      ],
    });
    assert.equal(lb.listeners.length, 1);
    assert.equal(lb.pools.length, 1);
    const alias = `${sims.urls['load-balancer']}/v2.0/lbaas`;
    const pool = await call('GET', `${alias}/pools/${lb.pools[0].id}`, demo);
    assert.equal(pool.body.pool.provisioning_status, 'PENDING_CREATE');
    await active(lb.id);
    const tree = (await call('GET', `${alias}/loadbalancers/${lb.id}/status`, demo)).body.statuses.loadbalancer;
    const p = tree.listeners[0].pools[0];
    assert.deepEqual(p.members.map((m: { operating_status: string }) => m.operating_status), ['ONLINE', 'ONLINE']);
    assert.equal(p.health_monitor.type, 'TLS-HELLO');
    assert.equal(p.provisioning_status, 'ACTIVE');
    assert.equal((await call('DELETE', `${lbUrl}/loadbalancers/${lb.id}?cascade=true`, demo)).status, 204);
  });

  test('validation: a VIP is required; unknown provider', async () => {
    const r = await call('POST', `${lbUrl}/loadbalancers`, demo, { loadbalancer: { name: 'novip' } });
    assert.equal(r.status, 400);
    assert.equal(r.body.faultstring, 'Validation failure: VIP must contain one of: vip_port_id, vip_network_id, vip_subnet_id.');
    const p = await call('POST', `${lbUrl}/loadbalancers`, demo, { loadbalancer: { vip_subnet_id: subnetId(), provider: 'f5' } });
    assert.deepEqual([p.status, p.body.faultstring], [400, "Provider 'f5' is not enabled."]);
  });
});

describe('scoping, quota, lists', () => {
  test('other projects get 404; admin sees everything', async () => {
    const lb = await newLb({ name: 'mine' });
    assert.equal((await getLb(lb.id, other)).status, 404);
    assert.equal((await call('DELETE', `${lbUrl}/loadbalancers/${lb.id}`, other)).status, 404);
    const theirs = (await call('GET', `${lbUrl}/loadbalancers`, other)).body.loadbalancers;
    assert.ok(!theirs.some((x: { id: string }) => x.id === lb.id));
    assert.equal((await getLb(lb.id, admin)).status, 200);
    const all = (await call('GET', `${lbUrl}/loadbalancers?project_id=${lb.project_id}`, admin)).body.loadbalancers;
    assert.ok(all.some((x: { id: string }) => x.id === lb.id));
  });

  test('quota: 403 "Quota has been met"', async () => {
    const projectId = (await newLb({ name: 'q0' }, other)).project_id as string;
    const set = await call('PUT', `${lbUrl}/quotas/${projectId}`, admin, { quota: { load_balancer: 1 } });
    assert.equal(set.status, 202);
    assert.equal((await call('PUT', `${lbUrl}/quotas/${projectId}`, other, { quota: { load_balancer: 5 } })).status, 403);
    const r = await call('POST', `${lbUrl}/loadbalancers`, other, { loadbalancer: { vip_subnet_id: subnetId() } });
    assert.equal(r.status, 403);
    assert.deepEqual(r.body, { faultcode: 'Client', faultstring: 'Quota has been met for resources: Load Balancer', debuginfo: null });
    assert.equal((await call('GET', `${lbUrl}/quotas/${projectId}`, other)).body.quota.load_balancer, 1);
  });

  test('tags filters and limit/marker pagination with next and previous links', async () => {
    const ids: string[] = [];
    for (const [i, tags] of [['page', 'a'], ['page', 'b'], ['page', 'a', 'b']].entries()) ids.push((await newLb({ name: `p${i}`, tags })).id);
    const list = async (q: string) => (await call('GET', `${lbUrl}/loadbalancers?${q}`, demo)).body;
    const ids_of = (b: { loadbalancers: { id: string }[] }) => b.loadbalancers.map((x) => x.id);
    assert.deepEqual(ids_of(await list('tags=page&tags=a')), [ids[0], ids[2]]);
    assert.deepEqual(ids_of(await list('tags-any=b&tags=page')), [ids[1], ids[2]]);
    assert.deepEqual(ids_of(await list('tags=page&not-tags=a,b')), [ids[0], ids[1]]);
    assert.deepEqual(ids_of(await list('tags=page&not-tags-any=b')), [ids[0]]);
    assert.deepEqual(ids_of(await list('name=p1')), [ids[1]]);

    const first = await list('tags=page&limit=2');
    assert.deepEqual(ids_of(first), [ids[0], ids[1]]);
    const next = first.loadbalancers_links.find((l: { rel: string }) => l.rel === 'next');
    assert.ok(next, 'a full page links to the next one');
    assert.equal(first.loadbalancers_links.length, 1);
    const second = (await call('GET', next.href, demo)).body;
    assert.deepEqual(ids_of(second), [ids[2]]);
    assert.ok(!second.loadbalancers_links.some((l: { rel: string }) => l.rel === 'next'));
    const prev = second.loadbalancers_links.find((l: { rel: string }) => l.rel === 'previous');
    assert.match(prev.href, /page_reverse=True/);
    assert.deepEqual(ids_of((await call('GET', prev.href, demo)).body), [ids[0], ids[1]]);
    // A full last page still links to an empty one (spec §7.1).
    const two = await list(`tags=page&limit=2&marker=${ids[0]}`);
    const empty = (await call('GET', two.loadbalancers_links.find((l: { rel: string }) => l.rel === 'next').href, demo)).body;
    assert.deepEqual(empty.loadbalancers, []);

    const sorted = await list('tags=page&sort=name:desc&fields=id&fields=name');
    assert.deepEqual(sorted.loadbalancers, [{ id: ids[2], name: 'p2' }, { id: ids[1], name: 'p1' }, { id: ids[0], name: 'p0' }]);
    assert.equal((await call('GET', `${lbUrl}/loadbalancers?marker=nope`, demo)).status, 400);
  });
});

describe('faults', () => {
  test('injected HTTP errors come in the WSME envelope', async () => {
    sims.octavia.state.faults.inject({ method: 'POST', path: '/loadbalancers', status: 503, times: 1 });
    const r = await call('POST', `${lbUrl}/loadbalancers`, demo, { loadbalancer: { vip_subnet_id: subnetId() } });
    assert.equal(r.status, 503);
    assert.equal(r.body.faultcode, 'Server');
    assert.equal(r.body.debuginfo, null);
    assert.match(r.headers.get('x-openstack-request-id') ?? '', /^req-/);
  });

  test('a configured fraction of creates ends in ERROR (seeded); ERROR is deletable, not updatable', async () => {
    sims.octavia.state.behaviour.createErrorFraction = 1;
    try {
      const lb = await newLb({ name: 'doomed' });
      const r = await waitFor(() => getLb(lb.id), (x) => x.body.loadbalancer.provisioning_status !== 'PENDING_CREATE');
      assert.deepEqual([r.body.loadbalancer.provisioning_status, r.body.loadbalancer.operating_status], ['ERROR', 'ERROR']);
      assert.equal((await call('PUT', `${lbUrl}/loadbalancers/${lb.id}`, demo, { loadbalancer: { name: 'x' } })).status, 409);
      assert.equal((await call('DELETE', `${lbUrl}/loadbalancers/${lb.id}`, demo)).status, 204);
      await waitFor(() => getLb(lb.id), (x) => x.status === 404);
    } finally {
      sims.octavia.state.behaviour.createErrorFraction = 0;
    }
  });

  test('stuck controller: PENDING_CREATE forever', async () => {
    sims.octavia.state.behaviour.stuck = true;
    try {
      const lb = await newLb({ name: 'stuck' });
      await new Promise((r) => setTimeout(r, 400));
      assert.equal((await getLb(lb.id)).body.loadbalancer.provisioning_status, 'PENDING_CREATE');
    } finally {
      sims.octavia.state.behaviour.stuck = false;
    }
  });
});

describe('replay and clean-up', () => {
  test('the same seed gives the same outcomes; close() leaves no timer armed', async () => {
    const outcomes = async (seed: number) => {
      const ks = await startKeystone();
      const s = await start(ks, seed);
      const token = await passwordToken(ks, 'demo', BUILTIN_USERS.demo.password, 'demo');
      s.octavia.state.behaviour.createErrorFraction = 0.5;
      const url = `${s.urls['load-balancer']}/v2/lbaas/loadbalancers`;
      const seen: string[] = [];
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) {
        const r = await call('POST', url, token, { loadbalancer: { vip_subnet_id: subnetId(s), name: `r${i}` } });
        ids.push(r.body.loadbalancer.id);
      }
      for (const id of ids) {
        const r = await waitFor(() => call('GET', `${url}/${id}`, token), (x) => !x.body.loadbalancer.provisioning_status.startsWith('PENDING'));
        seen.push(r.body.loadbalancer.provisioning_status);
      }
      // One more create, still pending when the cloud closes.
      await call('POST', url, token, { loadbalancer: { vip_subnet_id: subnetId(s) } });
      assert.ok(s.clock.pending > 0);
      await s.close();
      assert.equal(s.clock.pending, 0);
      await ks.app.close();
      return seen;
    };
    const a = await outcomes(2024);
    assert.deepEqual(await outcomes(2024), a);
    assert.ok(a.includes('ERROR') && a.includes('ACTIVE'), `a mix of outcomes: ${a}`);
  });
});
