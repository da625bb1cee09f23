// Server groups (spec openstack-apis §2.8) and quotas (§2.9): policy vs policies by microversion,
// rules only with anti-affinity, members through the `group` hint, hard anti-affinity ending in
// NoValidHost when hosts run out, the server_groups and server_group_members quotas, quota sets
// (show, detail, defaults, admin PUT) and /limits.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startNovaHarness, type NovaHarness } from './nova-harness.js';

let h: NovaHarness;

before(async () => {
  h = await startNovaHarness();
});
after(async () => h.close());

const group = (body: Record<string, unknown>, version?: string, who: 'demo' | 'other' = 'demo') =>
  h.call('POST', '/os-server-groups', who, { server_group: body }, version);

describe('server groups', () => {
  test('2.64: policy and rules; older: policies; 200 with the group', async () => {
    const r = await group({ name: 'masters', policy: 'anti-affinity', rules: { max_server_per_host: 1 } }, '2.64');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const g = r.body.server_group;
    assert.deepEqual({ ...g, id: 'x' }, { id: 'x', name: 'masters', policy: 'anti-affinity', rules: { max_server_per_host: 1 }, members: [], project_id: h.projects.demo, user_id: g.user_id });
    const old = (await h.ok(200, 'GET', `/os-server-groups/${g.id}`, 'demo')).server_group;
    assert.deepEqual(old.policies, ['anti-affinity']);
    assert.deepEqual(old.metadata, {});
    assert.equal(old.project_id, undefined, 'project_id from 2.13');
    const legacy = await group({ name: 'workers', policies: ['soft-anti-affinity'] }, '2.15');
    assert.equal(legacy.status, 200);
    await h.ok(204, 'DELETE', `/os-server-groups/${legacy.body.server_group.id}`, 'demo');
  });

  test('400s: rules with another policy, policy before 2.64, soft policies before 2.15', async () => {
    const rules = await group({ name: 'g', policy: 'affinity', rules: { max_server_per_host: 2 } }, '2.64');
    assert.equal(rules.status, 400);
    assert.equal(rules.body.badRequest.message, 'Only anti-affinity policy supports rules.');
    const early = await group({ name: 'g', policy: 'affinity' }, '2.63');
    assert.equal(early.status, 400);
    assert.match(early.body.badRequest.message, /'policies' is a required property$/);
    const soft = await group({ name: 'g', policies: ['soft-affinity'] }, '2.14');
    assert.equal(soft.status, 400);
    assert.match(soft.body.badRequest.message, /'soft-affinity' is not one of \['anti-affinity', 'affinity'\]$/);
  });

  test('members join with the group hint; hard anti-affinity runs out of hosts → ERROR NoValidHost', async () => {
    const nova = h.sims.nova.state;
    const zones = nova.behaviour.zones;
    nova.behaviour.zones = [{ name: 'nova', hosts: ['compute-a', 'compute-b'] }];
    try {
      const g = (await group({ name: 'spread', policy: 'anti-affinity' }, '2.64')).body.server_group;
      const a = await h.boot('demo', { name: 'm-1' }, undefined, { group: g.id });
      const b = await h.boot('demo', { name: 'm-2' }, undefined, { group: g.id });
      await h.until(a, 'ACTIVE');
      await h.until(b, 'ACTIVE');
      const c = await h.boot('demo', { name: 'm-3' }, undefined, { group: g.id });
      const failed = await h.until(c, 'ERROR');
      assert.equal(failed.fault.message, 'No valid host was found. There are not enough hosts available.');
      const members = (await h.ok(200, 'GET', `/os-server-groups/${g.id}`, 'demo', undefined, '2.64')).server_group.members;
      assert.deepEqual(new Set(members), new Set([a, b, c]));
      const hostsUsed = [a, b].map((id) => nova.servers.get(id)!.host);
      assert.notEqual(hostsUsed[0], hostsUsed[1]);
      assert.deepEqual((await h.ok(200, 'GET', `/servers/${a}`, 'demo', undefined, '2.71')).server.server_groups, [g.id]);
      for (const id of [a, b, c]) await h.ok(204, 'DELETE', `/servers/${id}`, 'demo');
      for (const id of [a, b, c]) await h.gone(id);
      assert.deepEqual((await h.ok(200, 'GET', `/os-server-groups/${g.id}`, 'demo', undefined, '2.64')).server_group.members, []);
    } finally {
      nova.behaviour.zones = zones;
    }
  });

  test('server_group_members quota: 403 at create', async () => {
    h.sims.nova.state.setQuota(h.projects.demo, { server_group_members: 1 });
    const g = (await group({ name: 'tiny', policy: 'soft-anti-affinity' }, '2.64')).body.server_group;
    await h.boot('demo', { name: 'only' }, undefined, { group: g.id });
    const r = await h.call('POST', '/servers', 'demo', {
      server: { name: 'extra', flavorRef: '2', imageRef: h.image(), networks: [{ uuid: h.network('demo').id }] },
      'os:scheduler_hints': { group: g.id },
    });
    assert.equal(r.status, 403);
    assert.equal(r.body.forbidden.message, 'Quota exceeded, too many servers in group');
    h.sims.nova.state.setQuota(h.projects.demo, { server_group_members: 10 });
  });

  test('server_groups quota: 403; list with limit/offset; other projects get 404', async () => {
    h.sims.nova.state.setQuota(h.projects.other, { server_groups: 2 });
    await group({ name: 'o1', policy: 'affinity' }, '2.64', 'other');
    const second = (await group({ name: 'o2', policy: 'affinity' }, '2.64', 'other')).body.server_group;
    const r = await group({ name: 'o3', policy: 'affinity' }, '2.64', 'other');
    assert.equal(r.status, 403);
    assert.equal(r.body.forbidden.message, 'Quota exceeded, too many server groups.');
    const page = await h.ok(200, 'GET', '/os-server-groups?limit=1&offset=1', 'other', undefined, '2.64');
    assert.deepEqual(page.server_groups.map((g: { name: string }) => g.name), ['o2']);
    await h.fails(404, 'itemNotFound', 'GET', `/os-server-groups/${second.id}`, 'demo');
    const all = await h.ok(200, 'GET', '/os-server-groups?all_projects=True', 'admin', undefined, '2.64');
    assert.ok(all.server_groups.some((g: { id: string }) => g.id === second.id));
  });
});

describe('quotas and limits', () => {
  test('show by microversion, detail with usage, defaults', async () => {
    const p = h.projects.other;
    const old = (await h.ok(200, 'GET', `/os-quota-sets/${p}`, 'other')).quota_set;
    assert.equal(old.id, p);
    assert.equal(old.floating_ips, 10, 'network quotas until 2.35');
    assert.equal(old.injected_files, 5);
    const now = (await h.ok(200, 'GET', `/os-quota-sets/${p}`, 'other', undefined, '2.57')).quota_set;
    assert.deepEqual(Object.keys(now).sort(), ['cores', 'id', 'instances', 'key_pairs', 'metadata_items', 'ram', 'server_group_members', 'server_groups']);
    assert.equal(now.server_groups, 2);
    const id = await h.boot('other', { name: 'counted', flavorRef: '3', networks: 'none' }, '2.37');
    const detail = (await h.ok(200, 'GET', `/os-quota-sets/${p}/detail`, 'other', undefined, '2.57')).quota_set;
    assert.deepEqual(detail.cores, { in_use: 2, limit: 20, reserved: 0 });
    assert.deepEqual(detail.ram, { in_use: 4096, limit: 51200, reserved: 0 });
    assert.deepEqual(detail.instances, { in_use: 1, limit: 10, reserved: 0 });
    assert.deepEqual(detail.server_groups, { in_use: 2, limit: 2, reserved: 0 });
    assert.equal((await h.ok(200, 'GET', `/os-quota-sets/${p}/defaults`, 'other', undefined, '2.57')).quota_set.server_groups, 10);
    const limits = (await h.ok(200, 'GET', '/limits', 'other', undefined, '2.57')).limits;
    assert.deepEqual(limits.rate, []);
    assert.equal(limits.absolute.totalCoresUsed, 2);
    assert.equal(limits.absolute.totalRAMUsed, 4096);
    assert.equal(limits.absolute.totalInstancesUsed, 1);
    assert.equal(limits.absolute.maxTotalCores, 20);
    assert.equal(limits.absolute.totalServerGroupsUsed, 2);
    assert.equal(limits.absolute.maxPersonality, undefined);
    assert.equal((await h.ok(200, 'GET', '/limits', 'other')).limits.absolute.maxTotalFloatingIps, 10);
    await h.ok(204, 'DELETE', `/servers/${id}`, 'other');
  });

  test('PUT by admins only; below usage needs force; another project is 403 to read', async () => {
    const p = h.projects.demo;
    const denied = await h.fails(403, 'forbidden', 'PUT', `/os-quota-sets/${p}`, 'demo', { quota_set: { cores: 4 } });
    assert.equal(denied, "Policy doesn't allow os_compute_api:os-quota-sets:update to be performed.");
    await h.fails(403, 'forbidden', 'GET', `/os-quota-sets/${h.projects.other}`, 'demo');
    const set = (await h.ok(200, 'PUT', `/os-quota-sets/${p}`, 'admin', { quota_set: { instances: 50, cores: '40' } }, '2.57')).quota_set;
    assert.equal(set.instances, 50);
    assert.equal(set.cores, 40);
    assert.equal(set.id, undefined);
    const used = h.sims.nova.state.usage(p).instances;
    if (used > 0) {
      const msg = await h.fails(400, 'badRequest', 'PUT', `/os-quota-sets/${p}`, 'admin', { quota_set: { instances: 0 } });
      assert.equal(msg, `Quota limit 0 for instances must be greater than or equal to already used and reserved ${used}.`);
      await h.ok(200, 'PUT', `/os-quota-sets/${p}`, 'admin', { quota_set: { instances: 0, force: true } });
      const r = await h.call('POST', '/servers', 'demo', { server: { name: 'x', flavorRef: '2', imageRef: h.image(), networks: [{ uuid: h.network('demo').id }] } });
      assert.equal(r.status, 403);
      assert.equal(r.body.forbidden.message, `Quota exceeded for instances: Requested 1, but already used ${used} of 0 instances`);
    }
    const bad = await h.fails(400, 'badRequest', 'PUT', `/os-quota-sets/${p}`, 'admin', { quota_set: { bogus: 1 } }, '2.57');
    assert.match(bad, /Additional properties are not allowed \('bogus' was unexpected\)$/);
    await h.ok(202, 'DELETE', `/os-quota-sets/${p}`, 'admin');
    assert.equal((await h.ok(200, 'GET', `/os-quota-sets/${p}`, 'demo')).quota_set.instances, 10);
  });
});
