// Nova and the Cinder simulator (spec openstack-apis §2.2 block_device_mapping_v2, §2.10): boot
// from an image-backed volume Nova creates (image "" in the server, deleted with the server when
// delete_on_termination), boot from the user's volume (reserved at create, in-use, available again
// after delete), and the os-volume_attachments API with its 409 while building.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_DELAYS } from '../../cloudsim/common/clock.js';
import { waitFor } from '../support/http.js';
import { startNovaHarness, type NovaHarness } from './nova-harness.js';

let h: NovaHarness;

before(async () => {
  h = await startNovaHarness();
});
after(async () => h.close());

const cinder = () => h.sims.cinder.state;
const volumeStatus = (id: string) => cinder().volumes.get(id)?.status;
const settled = (id: string, status: string | undefined) => waitFor(async () => volumeStatus(id), (s) => s === status);

describe('boot from volume', () => {
  test('image → volume: Nova creates the volume, attaches it as /dev/vda, and deletes it with the server', async () => {
    const id = await h.boot('demo', {
      name: 'bfv',
      imageRef: '',
      block_device_mapping_v2: [{ boot_index: 0, uuid: h.image(), source_type: 'image', destination_type: 'volume', volume_size: 10, delete_on_termination: true }],
    }, '2.67');
    const s = await h.until(id, 'ACTIVE', 'demo', '2.67');
    assert.equal(s.image, '');
    const [attached] = s['os-extended-volumes:volumes_attached'];
    assert.equal(attached.delete_on_termination, true);
    const v = cinder().volumes.get(attached.id)!;
    assert.deepEqual([v.status, v.size, v.bootable, v.projectId], ['in-use', 10, true, h.projects.demo]);
    const list = (await h.ok(200, 'GET', `/servers/${id}/os-volume_attachments`, 'demo', undefined, '2.79')).volumeAttachments;
    assert.deepEqual(list, [{ id: v.id, serverId: id, volumeId: v.id, device: '/dev/vda', tag: null, delete_on_termination: true }]);
    await h.ok(204, 'DELETE', `/servers/${id}`, 'demo');
    await h.gone(id);
    await settled(v.id, undefined);
  });

  test("the user's volume: reserved at create, in-use when ACTIVE, available after the server goes", async () => {
    const v = cinder().create({ size: 5, projectId: h.projects.demo, userId: 'u', imageRef: h.image(), bootable: true });
    await settled(v.id, 'available');
    h.sims.nova.state.clock.setDelay('nova.server.boot', { kind: 'fixed', ms: 1_000_000 });
    const id = await h.boot('demo', { name: 'own-volume', imageRef: undefined, block_device_mapping_v2: [{ boot_index: 0, uuid: v.id, source_type: 'volume', destination_type: 'volume' }] });
    h.sims.nova.state.clock.setDelay('nova.server.boot', DEFAULT_DELAYS['nova.server.boot']);
    assert.equal(volumeStatus(v.id), 'reserved');
    await h.until(id, 'ACTIVE');
    assert.equal(volumeStatus(v.id), 'in-use');
    const taken = await h.call('POST', '/servers', 'demo', {
      server: { name: 'x', flavorRef: '2', networks: [{ uuid: h.network('demo').id }], block_device_mapping_v2: [{ boot_index: 0, uuid: v.id, source_type: 'volume', destination_type: 'volume' }] },
    });
    assert.equal(taken.status, 400);
    assert.match(taken.body.badRequest.message, /^Invalid volume: /);
    await h.ok(204, 'DELETE', `/servers/${id}`, 'demo');
    await h.gone(id);
    assert.equal(volumeStatus(v.id), 'available', 'delete_on_termination defaults to false');
  });

  test('400s: unknown volume, image → volume without a size', async () => {
    const missing = await h.call('POST', '/servers', 'demo', {
      server: { name: 'x', flavorRef: '2', networks: [{ uuid: h.network('demo').id }], block_device_mapping_v2: [{ boot_index: 0, uuid: '00000000-0000-4000-8000-000000000000', source_type: 'volume', destination_type: 'volume' }] },
    });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.badRequest.message, 'Volume 00000000-0000-4000-8000-000000000000 could not be found.');
    const sizeless = await h.call('POST', '/servers', 'demo', {
      server: { name: 'x', flavorRef: '2', networks: [{ uuid: h.network('demo').id }], block_device_mapping_v2: [{ boot_index: 0, uuid: h.image(), source_type: 'image', destination_type: 'volume' }] },
    });
    assert.equal(sizeless.status, 400);
    assert.match(sizeless.body.badRequest.message, /^Block Device Mapping is Invalid: /);
  });
});

describe('volume attachments', () => {
  test('attach (reserved → in-use), show, detach (detaching → available); 409 while building', async () => {
    const v = cinder().create({ size: 1, projectId: h.projects.demo, userId: 'u' });
    await settled(v.id, 'available');
    h.sims.nova.state.clock.setDelay('nova.server.boot', { kind: 'fixed', ms: 1_000_000 });
    const slow = await h.boot('demo', { name: 'slow' });
    h.sims.nova.state.clock.setDelay('nova.server.boot', DEFAULT_DELAYS['nova.server.boot']);
    const busy = await h.fails(409, 'conflictingRequest', 'POST', `/servers/${slow}/os-volume_attachments`, 'demo', { volumeAttachment: { volumeId: v.id } });
    assert.equal(busy, `Cannot 'attach_volume' instance ${slow} while it is in vm_state building`);
    await h.ok(204, 'DELETE', `/servers/${slow}`, 'demo');

    const id = await h.boot('demo', { name: 'with-data' });
    await h.until(id, 'ACTIVE');
    const a = (await h.ok(200, 'POST', `/servers/${id}/os-volume_attachments`, 'demo', { volumeAttachment: { volumeId: v.id } })).volumeAttachment;
    assert.deepEqual(a, { id: v.id, serverId: id, volumeId: v.id, device: '/dev/vdb' });
    assert.ok(['reserved', 'in-use'].includes(volumeStatus(v.id)!), 'reserved, then in-use ~2 ms later');
    await settled(v.id, 'in-use');
    assert.equal((await h.ok(200, 'GET', `/servers/${id}/os-volume_attachments/${v.id}`, 'demo')).volumeAttachment.device, '/dev/vdb');
    assert.deepEqual((await h.ok(200, 'GET', `/servers/${id}`, 'demo')).server['os-extended-volumes:volumes_attached'], [{ id: v.id }]);
    await h.ok(202, 'DELETE', `/servers/${id}/os-volume_attachments/${v.id}`, 'demo');
    assert.ok(['detaching', 'available'].includes(volumeStatus(v.id)!), 'detaching, then available ~2 ms later');
    await settled(v.id, 'available');
    await h.fails(404, 'itemNotFound', 'GET', `/servers/${id}/os-volume_attachments/${v.id}`, 'demo');
  });
});
