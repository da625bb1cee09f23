// Nova's [cinder] cross_az_attach in the simulator, as nova-api and nova-compute apply it: with it (Nova's
// default) the volumes Nova makes for a server go to Cinder's default zone whatever the server's, and any
// volume attaches anywhere; without it they are made in the server's zone, a server whose volumes are in
// another zone than it asks for is refused (one asking for none is placed in theirs), and so is an attach
// across zones. A volume that is not bootable does not boot a server either way.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '../support/http.js';
import { startNovaHarness, type NovaHarness } from './nova-harness.js';

let h: NovaHarness;

before(async () => {
  h = await startNovaHarness();
});
after(async () => h.close());
afterEach(() => {
  h.sims.nova.state.behaviour.crossAzAttach = true;
});

const cinder = () => h.sims.cinder.state;
const available = async (zone: string, bootable = true) => {
  const v = cinder().create({ size: 5, projectId: h.projects.demo, userId: 'u', availabilityZone: zone, ...(bootable ? { imageRef: h.image(), bootable: true } : {}) });
  await waitFor(async () => cinder().volumes.get(v.id)?.status, (s) => s === 'available');
  return v.id;
};
const imageVolume = (size: number) => [{ boot_index: 0, uuid: h.image(), source_type: 'image', destination_type: 'volume', volume_size: size, delete_on_termination: true }];
const ownVolume = (id: string) => [{ boot_index: 0, uuid: id, source_type: 'volume', destination_type: 'volume', delete_on_termination: true }];
const bootVolumeOf = (s: { 'os-extended-volumes:volumes_attached': { id: string }[] }) => cinder().volumes.get(s['os-extended-volumes:volumes_attached'][0]!.id)!;

describe('cross_az_attach true (Nova\'s default)', () => {
  test('the volume Nova makes for a server in az-3 is in Cinder\'s default zone; a volume of az-2 attaches to it', async () => {
    const id = await h.boot('demo', { name: 'cross', imageRef: '', availability_zone: 'az-3', block_device_mapping_v2: imageVolume(10) }, '2.67');
    const s = await h.until(id, 'ACTIVE', 'demo', '2.67');
    assert.equal(s['OS-EXT-AZ:availability_zone'], 'az-3');
    assert.equal(bootVolumeOf(s).availabilityZone, 'nova');
    const other = await available('az-2', false);
    await h.ok(200, 'POST', `/servers/${id}/os-volume_attachments`, 'demo', { volumeAttachment: { volumeId: other } });
    await h.ok(204, 'DELETE', `/servers/${id}`, 'demo');
    await h.gone(id);
  });
});

describe('cross_az_attach false', () => {
  test('the volume Nova makes is in the server\'s zone', async () => {
    h.sims.nova.state.behaviour.crossAzAttach = false;
    const id = await h.boot('demo', { name: 'same', imageRef: '', availability_zone: 'az-3', block_device_mapping_v2: imageVolume(10) }, '2.67');
    const s = await h.until(id, 'ACTIVE', 'demo', '2.67');
    assert.equal(bootVolumeOf(s).availabilityZone, 'az-3');
    await h.ok(204, 'DELETE', `/servers/${id}`, 'demo');
    await h.gone(id);
  });

  test('a server asking for another zone than its volume\'s is refused; asking for none, it is placed in the volume\'s', async () => {
    h.sims.nova.state.behaviour.crossAzAttach = false;
    const v = await available('az-2');
    const net = [{ uuid: h.network('demo').id }];
    const refused = await h.fails(400, 'badRequest', 'POST', '/servers', 'demo', { server: { name: 'x', flavorRef: '2', networks: net, availability_zone: 'az-3', block_device_mapping_v2: ownVolume(v) } });
    assert.equal(refused, 'Server and volumes are not in the same availability zone. Server is in: az-3. Volumes are in: az-2');
    assert.equal(cinder().volumes.get(v)!.status, 'available', 'nothing was reserved');
    const id = await h.boot('demo', { name: 'follows', imageRef: undefined, block_device_mapping_v2: ownVolume(v) });
    const s = await h.until(id, 'ACTIVE');
    assert.equal(s['OS-EXT-AZ:availability_zone'], 'az-2');

    // An attach across zones is refused too; one in the server's zone is not.
    const elsewhere = await available('nova', false);
    const across = await h.fails(400, 'badRequest', 'POST', `/servers/${id}/os-volume_attachments`, 'demo', { volumeAttachment: { volumeId: elsewhere } });
    assert.equal(across, `Invalid volume: Instance ${id} and volume ${elsewhere} are not in the same availability_zone. Instance is in az-2. Volume is in nova`);
    const near = await available('az-2', false);
    await h.ok(200, 'POST', `/servers/${id}/os-volume_attachments`, 'demo', { volumeAttachment: { volumeId: near } });
    await h.ok(204, 'DELETE', `/servers/${id}`, 'demo');
    await h.gone(id);
  });

  test('volumes of two zones cannot go to one server', async () => {
    h.sims.nova.state.behaviour.crossAzAttach = false;
    const [a, b] = [await available('az-2'), await available('az-3', false)];
    const msg = await h.fails(400, 'badRequest', 'POST', '/servers', 'demo', {
      server: { name: 'x', flavorRef: '2', networks: [{ uuid: h.network('demo').id }], block_device_mapping_v2: [...ownVolume(a), { boot_index: -1, uuid: b, source_type: 'volume', destination_type: 'volume' }] },
    });
    assert.equal(msg, 'Volumes are in different availability zones: az-2,az-3');
  });
});

test('a volume that is not bootable does not boot a server', async () => {
  const v = await available('nova', false);
  const msg = await h.fails(400, 'badRequest', 'POST', '/servers', 'demo', { server: { name: 'x', flavorRef: '2', networks: [{ uuid: h.network('demo').id }], block_device_mapping_v2: ownVolume(v) } });
  assert.equal(msg, `Block Device ${v} is not bootable.`);
});
