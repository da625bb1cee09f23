// os-services for admins: the controller's conductor and scheduler, a nova-compute per simulated host in
// its zone, all enabled and up; filters; ids by microversion; 403 for a member.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startNovaHarness, type NovaHarness } from '../nova-harness.js';

let h: NovaHarness;
before(async () => {
  h = await startNovaHarness();
});
after(() => h.close());

test('the services of the simulated hosts, filtered by host and binary, ids numbers then UUIDs', async () => {
  const all = (await h.ok(200, 'GET', '/os-services', 'admin')).services;
  assert.deepEqual(all.slice(0, 2).map((s: { binary: string; zone: string }) => `${s.binary}/${s.zone}`), ['nova-conductor/internal', 'nova-scheduler/internal']);
  const hosts = h.sims.nova.state.behaviour.zones.flatMap((z) => z.hosts);
  assert.deepEqual(all.filter((s: { binary: string }) => s.binary === 'nova-compute').map((s: { host: string }) => s.host), hosts);
  assert.deepEqual(Object.keys(all[0]).sort(), ['binary', 'disabled_reason', 'host', 'id', 'state', 'status', 'updated_at', 'zone']);
  assert.deepEqual([all[0].id, all[0].status, all[0].state], [1, 'enabled', 'up']);
  const one = (await h.ok(200, 'GET', `/os-services?host=${hosts[0]}&binary=nova-compute`, 'admin', undefined, '2.53')).services;
  assert.equal(one.length, 1);
  assert.match(one[0].id, /^[0-9a-f-]{36}$/);
  assert.equal(one[0].forced_down, false);
  assert.equal(await h.fails(403, 'forbidden', 'GET', '/os-services', 'demo'), "Policy doesn't allow os_compute_api:os-services:list to be performed.");
});
