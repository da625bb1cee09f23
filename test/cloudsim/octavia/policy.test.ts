// Octavia's policy mode: 'admin_or_owner' (the default, devstack's) lets a project's member manage its load
// balancers; 'default' (Zed's policy in code, seed.yaml octavia_policy) gives a plain member or reader 403 on
// every call, reads and quota included, until Keystone grants load-balancer_observer (reads) or
// load-balancer_member (writes); admins pass either way.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CloudSims } from '../../../cloudsim/cloud.js';
import { BUILTIN_USERS } from '../../../cloudsim/embedded.js';
import type { KeystoneSim } from '../../../cloudsim/keystone/index.js';
import { defaultSeed } from '../../../cloudsim/seed.js';
import { passwordToken, startKeystone, startSims } from '../../support/app.js';
import { getJson } from '../support-sims.js';

let keystone: KeystoneSim;
let sims: CloudSims;
before(async () => {
  keystone = await startKeystone();
  sims = await startSims(keystone, 0.001, { seed: { ...defaultSeed(), octavia_policy: 'default' } });
});
after(async () => {
  await sims?.close();
  await keystone?.app.close();
});

const token = (user: 'demo' | 'demo-reader' | 'admin') => passwordToken(keystone, user, BUILTIN_USERS[user].password, BUILTIN_USERS[user].project);

async function call(method: string, path: string, tok: string, body?: unknown) {
  const res = await fetch(`${sims.urls['load-balancer']}${path}`, {
    method,
    headers: { accept: 'application/json', 'x-auth-token': tok, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json().catch(() => undefined)) as any };
}

const subnet = () => [...sims.neutron.state.subnets.values()].find((s) => s.name === 'public-subnet')!.id;

test('the seed sets the mode; a plain member and reader get 403 on reads, writes and their quota', async () => {
  assert.equal(sims.octavia.state.behaviour.policy, 'default');
  const demo = await token('demo');
  const project = keystone.state.projectId('demo');
  for (const [method, path, body] of [
    ['GET', '/v2/lbaas/loadbalancers'],
    ['GET', `/v2/lbaas/quotas/${project}`],
    ['POST', '/v2/lbaas/loadbalancers', { loadbalancer: { vip_subnet_id: subnet() } }],
  ] as [string, string, unknown?][]) {
    const r = await call(method, path, demo, body);
    assert.equal(r.status, 403, `${method} ${path}`);
    assert.deepEqual(r.body, { faultcode: 'Client', faultstring: 'Policy does not allow this request to be performed.', debuginfo: null });
  }
  assert.equal((await call('GET', '/v2/lbaas/loadbalancers', await token('demo-reader'))).status, 403);
  assert.equal((await getJson(`${sims.urls['load-balancer']}/`)).status, 200, 'the version document needs no role');
});

test('load-balancer_observer reads, load-balancer_member writes; admins pass; admin_or_owner lets the member in again', async () => {
  const project = keystone.state.projectId('demo');
  keystone.state.assignRole(keystone.state.userId('demo-reader'), project, 'load-balancer_observer');
  const observer = await token('demo-reader');
  assert.equal((await call('GET', '/v2/lbaas/loadbalancers', observer)).status, 200);
  assert.equal((await call('GET', `/v2/lbaas/quotas/${project}`, observer)).status, 200);
  assert.equal((await call('POST', '/v2/lbaas/loadbalancers', observer, { loadbalancer: { vip_subnet_id: subnet() } })).status, 403);

  keystone.state.assignRole(keystone.state.userId('demo'), project, 'load-balancer_member');
  const member = await token('demo');
  const made = await call('POST', '/v2/lbaas/loadbalancers', member, { loadbalancer: { name: 'policy-lb', vip_subnet_id: subnet() } });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  assert.equal((await call('GET', '/v2/lbaas/loadbalancers', await token('admin'))).status, 200);
  assert.equal((await call('PUT', `/v2/lbaas/quotas/${project}`, member, { quota: { load_balancer: 5 } })).status, 403, 'quotas: admins and load-balancer_quota_admin');

  keystone.state.unassignRole(keystone.state.userId('demo-reader'), project, 'load-balancer_observer');
  const plain = await token('demo-reader');
  assert.equal((await call('GET', '/v2/lbaas/loadbalancers', plain)).status, 403);
  sims.octavia.state.behaviour.policy = 'admin_or_owner';
  assert.equal((await call('GET', '/v2/lbaas/loadbalancers', plain)).status, 200);
  await call('DELETE', `/v2/lbaas/loadbalancers/${made.body.loadbalancer.id}?cascade=true`, member);
});
