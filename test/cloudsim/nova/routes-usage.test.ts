// os-simple-tenant-usage as Zed computes it: a project's servers active in the period, each charged the
// hours it ran inside it, summed per project; the owner or an admin; every project's for admins only
// (`detailed=1` with the servers); paging by limit and marker from 2.40; Nova's 400s for a bad period.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startNovaHarness, type NovaHarness } from '../nova-harness.js';

let h: NovaHarness;
before(async () => {
  h = await startNovaHarness();
});
after(() => h.close());

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 19);

test("a project's usage: its servers, hours within the period, the totals by flavor; an empty period is {}", async () => {
  const a = await h.boot('demo', { name: 'usage-a' });
  const b = await h.boot('demo', { name: 'usage-b' });
  await Promise.all([h.until(a, 'ACTIVE'), h.until(b, 'ACTIVE')]);
  const project = h.projects.demo;
  const [from, to] = [day(-1), day(1)];
  const u = (await h.ok(200, 'GET', `/os-simple-tenant-usage/${project}?start=${from}&end=${to}`, 'demo')).tenant_usage;
  assert.equal(u.tenant_id, project);
  const mine = u.server_usages.filter((s: { name: string }) => s.name.startsWith('usage-'));
  assert.deepEqual(mine.map((s: { instance_id: string }) => s.instance_id), [a, b], 'oldest first');
  const s = mine[0];
  assert.deepEqual(Object.keys(s).sort(), ['ended_at', 'flavor', 'hours', 'instance_id', 'local_gb', 'memory_mb', 'name', 'started_at', 'state', 'tenant_id', 'uptime', 'vcpus']);
  assert.deepEqual([s.flavor, s.state, s.ended_at, s.tenant_id], ['m1.small', 'active', null, project]);
  assert.ok(s.hours > 0 && s.hours < 0.1, `ran seconds: ${s.hours} h`);
  assert.match(s.started_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?$/);
  const sum = (k: string) => u.server_usages.reduce((t: number, x: Record<string, number>) => t + x[k]! * (k === 'hours' ? 1 : x.hours!), 0);
  assert.ok(Math.abs(u.total_hours - sum('hours')) < 1e-9);
  assert.ok(Math.abs(u.total_vcpus_usage - sum('vcpus')) < 1e-9);
  assert.ok(Math.abs(u.total_memory_mb_usage - sum('memory_mb')) < 1e-6);
  assert.equal(u.start, from);
  assert.ok(u.stop < to, 'the end is now at the latest');

  assert.deepEqual((await h.ok(200, 'GET', `/os-simple-tenant-usage/${project}?start=${day(-3)}&end=${day(-2)}`, 'demo')).tenant_usage, {});
  // Deleted: terminated, charged until then, still reported while Nova keeps it.
  await h.ok(204, 'DELETE', `/servers/${b}`, 'demo');
  await h.gone(b);
  const after = (await h.ok(200, 'GET', `/os-simple-tenant-usage/${project}?start=${day(-1)}&end=${day(1)}`, 'demo')).tenant_usage;
  const ended = after.server_usages.find((x: { instance_id: string }) => x.instance_id === b);
  assert.equal(ended.state, 'terminated');
  assert.ok(ended.ended_at >= ended.started_at);
});

test('who may ask: the owner and admins; every project only admins (detailed lists servers)', async () => {
  const project = h.projects.demo;
  await h.ok(200, 'GET', `/os-simple-tenant-usage/${project}`, 'admin');
  assert.equal(await h.fails(403, 'forbidden', 'GET', `/os-simple-tenant-usage/${project}`, 'other'), "Policy doesn't allow os_compute_api:os-simple-tenant-usage:show to be performed.");
  assert.equal(await h.fails(403, 'forbidden', 'GET', '/os-simple-tenant-usage', 'demo'), "Policy doesn't allow os_compute_api:os-simple-tenant-usage:list to be performed.");
  const all = (await h.ok(200, 'GET', `/os-simple-tenant-usage?start=${day(-1)}&end=${day(1)}`, 'admin')).tenant_usages;
  const demo = all.find((x: { tenant_id: string }) => x.tenant_id === project);
  assert.ok(demo && demo.server_usages === undefined, 'not detailed');
  const detailed = (await h.ok(200, 'GET', `/os-simple-tenant-usage?start=${day(-1)}&end=${day(1)}&detailed=1`, 'admin')).tenant_usages;
  assert.ok(detailed.find((x: { tenant_id: string }) => x.tenant_id === project).server_usages.length > 0);
});

test('paging from 2.40: limit and marker, a next link on a full page; a bad period or marker is 400', async () => {
  const project = h.projects.demo;
  const url = `/os-simple-tenant-usage/${project}?start=${day(-1)}&end=${day(1)}`;
  const first = await h.ok(200, 'GET', `${url}&limit=1`, 'demo', undefined, '2.40');
  assert.equal(first.tenant_usage.server_usages.length, 1);
  const next = new URL(first.tenant_usage_links[0].href);
  assert.equal(next.searchParams.get('marker'), first.tenant_usage.server_usages[0].instance_id);
  const second = await h.ok(200, 'GET', `${url}&limit=1&marker=${next.searchParams.get('marker')}`, 'demo', undefined, '2.40');
  assert.notEqual(second.tenant_usage.server_usages[0].instance_id, first.tenant_usage.server_usages[0].instance_id);
  assert.equal((await h.ok(200, 'GET', `${url}&limit=1`, 'demo')).tenant_usage_links, undefined, 'no paging before 2.40');
  assert.equal(await h.fails(400, 'badRequest', 'GET', `/os-simple-tenant-usage/${project}?start=${day(1)}&end=${day(-1)}`, 'demo'), 'Invalid start time. The start time cannot occur after the end time.');
  assert.equal(await h.fails(400, 'badRequest', 'GET', `/os-simple-tenant-usage/${project}?start=yesterday`, 'demo'), 'Datetime is in invalid format');
  await h.fails(400, 'badRequest', 'GET', `${url}&marker=nope`, 'demo', undefined, '2.40');
});
