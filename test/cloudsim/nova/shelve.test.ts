// Shelve and unshelve as Nova does them (shelved_offload_time 0): SHELVED_OFFLOADED through its task states,
// the host freed (the hypervisors' usage goes down, the quota usage does not), the ports kept with their host
// binding gone, the same ports and volumes back after unshelve on a host again; Nova's 409s, 400s and policy.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '../../support/http.js';
import { startNovaHarness, type NovaHarness } from '../nova-harness.js';

let h: NovaHarness;
before(async () => {
  h = await startNovaHarness();
  // Slow enough (2 s and 0.8 s at the harness's scale) to see each state on the way.
  h.sims.nova.state.clock.setDelay('nova.server.shelve', { kind: 'fixed', ms: 2_000_000 });
  h.sims.nova.state.clock.setDelay('nova.server.unshelve', { kind: 'fixed', ms: 800_000 });
});
after(async () => {
  await h?.close();
});

const vcpusUsed = async (): Promise<number> => {
  const body = await h.ok(200, 'GET', '/os-hypervisors/detail', 'admin', undefined, '2.53');
  return (body.hypervisors as { vcpus_used: number }[]).reduce((n, x) => n + x.vcpus_used, 0);
};
const coresUsed = async (): Promise<number> => (await h.ok(200, 'GET', '/limits', 'demo')).limits.absolute.totalCoresUsed;
const portsOf = (id: string) =>
  [...h.sims.neutron.state.ports.values()].filter((p) => p.deviceId === id).map((p) => ({ id: p.id, host: p.bindingHostId })).sort((a, b) => a.id.localeCompare(b.id));
const action = (id: string, body: unknown, who: 'demo' | 'demo-reader' | 'admin' = 'demo', version?: string) => h.call('POST', `/servers/${id}/action`, who, body, version);

test('shelve: task states, SHELVED_OFFLOADED, host freed, ports kept; unshelve: the same ports on a host, ACTIVE', async () => {
  const id = await h.boot('demo', { name: 'sleeper' });
  await h.until(id, 'ACTIVE');
  const ports = portsOf(id);
  assert.equal(ports.length, 1);
  assert.ok(ports[0]!.host !== '', 'bound to a host while ACTIVE');
  const [usedBefore, coresBefore] = [await vcpusUsed(), await coresUsed()];

  assert.equal((await h.fails(403, 'forbidden', 'POST', `/servers/${id}/action`, 'demo-reader', { shelve: null })), "Policy doesn't allow os_compute_api:os-shelve:shelve to be performed.");
  assert.equal(await h.fails(409, 'conflictingRequest', 'POST', `/servers/${id}/action`, 'demo', { unshelve: null }), `Cannot 'unshelve' instance ${id} while it is in vm_state active`);

  const r = await action(id, { shelve: null });
  assert.equal(r.status, 202);
  assert.equal(r.body, undefined, 'no body');
  const shelving = (await h.ok(200, 'GET', `/servers/${id}`, 'demo')).server;
  assert.equal(shelving['OS-EXT-STS:task_state'], 'shelving');
  assert.equal(await h.fails(409, 'conflictingRequest', 'POST', `/servers/${id}/action`, 'demo', { shelve: null }), `Cannot 'shelve' instance ${id} while it is in task_state shelving`);

  const seen = new Set<string>();
  await waitFor(
    () => h.ok(200, 'GET', `/servers/${id}`, 'admin'),
    (b) => {
      seen.add(`${b.server.status}/${b.server['OS-EXT-STS:task_state']}`);
      return b.server.status === 'SHELVED_OFFLOADED';
    },
  );
  assert.ok(seen.has('SHELVED/shelving_offloading'), `SHELVED on the way: ${[...seen].join(', ')}`);
  const off = (await h.ok(200, 'GET', `/servers/${id}`, 'admin')).server;
  assert.equal(off['OS-EXT-STS:vm_state'], 'shelved_offloaded');
  assert.equal(off['OS-EXT-STS:task_state'], null);
  assert.equal(off['OS-EXT-STS:power_state'], 4);
  assert.equal(off['OS-EXT-SRV-ATTR:host'], null);
  assert.equal(off.hostId, '');
  assert.deepEqual(portsOf(id), ports.map((p) => ({ id: p.id, host: '' })), 'the same ports, their host binding gone');
  assert.ok(Object.keys(off.addresses).length > 0, 'the addresses stay');
  assert.equal(await vcpusUsed(), usedBefore - 1, "the host's vCPU freed (m1.small: 1)");
  assert.equal(await coresUsed(), coresBefore, 'the quota still counts it');
  assert.equal(await h.fails(409, 'conflictingRequest', 'POST', `/servers/${id}/action`, 'demo', { shelve: null }), `Cannot 'shelve' instance ${id} while it is in vm_state shelved_offloaded`);
  const listed = await h.ok(200, 'GET', '/servers/detail?status=SHELVED_OFFLOADED', 'demo');
  assert.deepEqual(listed.servers.map((s: { id: string }) => s.id), [id]);

  // 2.77's body: a zone or null, nothing else; an unknown zone is a 400
  await h.fails(400, 'badRequest', 'POST', `/servers/${id}/action`, 'demo', { unshelve: {} }, '2.77');
  assert.equal(await h.fails(400, 'badRequest', 'POST', `/servers/${id}/action`, 'demo', { unshelve: { availability_zone: 'nowhere' } }, '2.77'), 'The requested availability zone is not available');
  assert.equal((await action(id, { unshelve: { availability_zone: 'nova' } }, 'demo', '2.77')).status, 202);
  assert.equal((await h.ok(200, 'GET', `/servers/${id}`, 'demo')).server['OS-EXT-STS:task_state'], 'unshelving');
  const back = await h.until(id, 'ACTIVE', 'admin');
  assert.equal(back['OS-EXT-STS:power_state'], 1);
  assert.ok(back['OS-EXT-SRV-ATTR:host'], 'on a host again');
  assert.deepEqual(portsOf(id).map((p) => p.id), ports.map((p) => p.id), 'the same ports back');
  assert.ok(portsOf(id).every((p) => p.host === back['OS-EXT-SRV-ATTR:host']), 'bound to its new host');
  assert.equal(await vcpusUsed(), usedBefore);
  await h.ok(204, 'DELETE', `/servers/${id}`, 'demo');
  await h.gone(id);
});

test('a volume-backed server shelves without a snapshot, keeps its volume, and a shelved server deletes cleanly', async () => {
  const id = await h.boot('demo', { name: 'vol-sleeper', imageRef: undefined, block_device_mapping_v2: [{ boot_index: 0, uuid: h.image(), source_type: 'image', destination_type: 'volume', volume_size: 1, delete_on_termination: true }] });
  const active = await h.until(id, 'ACTIVE');
  const volumes = active['os-extended-volumes:volumes_attached'];
  assert.equal(volumes.length, 1);
  assert.equal((await action(id, { shelve: null })).status, 202);
  const seen = new Set<string>();
  await waitFor(() => h.ok(200, 'GET', `/servers/${id}`, 'demo'), (b) => (seen.add(String(b.server['OS-EXT-STS:task_state'])), b.server.status === 'SHELVED_OFFLOADED'));
  assert.ok(!seen.has('shelving_image_uploading'), 'no image upload for a volume-backed server');
  const off = (await h.ok(200, 'GET', `/servers/${id}`, 'demo')).server;
  assert.deepEqual(off['os-extended-volumes:volumes_attached'], volumes);
  const ports = portsOf(id).map((p) => p.id);
  await h.ok(204, 'DELETE', `/servers/${id}`, 'demo');
  await h.gone(id);
  assert.ok(ports.every((p) => !h.sims.neutron.state.ports.has(p)), "Nova's ports deleted with it");
});
