// The Nova servers client (src/openstack/nova-servers.ts) against the simulator at NOVA_MICROVERSION: a
// server booted onto a pre-created port with tags, metadata, user data, key, zone and group in the create
// call (BUILD → ACTIVE), found by exact name and tags, tagged, deleted (→ 404); a boot-from-volume server;
// tags refused while it builds.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { DEFAULT_DELAYS } from '../../cloudsim/common/clock.js';
import { isNotFound } from '../../src/openstack/errors.js';
import { NeutronClient } from '../../src/openstack/neutron.js';
import { NovaResourcesClient } from '../../src/openstack/nova-resources.js';
import { exactNameRegex, NovaServersClient } from '../../src/openstack/nova-servers.js';
import { failure } from '../support/openstack.js';
import { waitFor } from '../support/http.js';
import { FAST_RETRY, startCloud, type Cloud } from './cloud.js';

let cloud: Cloud;
let servers: NovaServersClient;
let nova: NovaResourcesClient;
let neutron: NeutronClient;
let networkId: string;
let subnetId: string;
let imageId: string;

/** An OpenSSH ed25519 public key line. */
function sshPublicKey(): string {
  const raw = Buffer.from(generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x!, 'base64url');
  const field = (b: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, b.length]), b]);
  return `ssh-ed25519 ${Buffer.concat([field(Buffer.from('ssh-ed25519')), field(raw)]).toString('base64')} test`;
}

/** The server's status, or 'gone' once Nova answers 404. */
const statusOf = (id: string) => servers.get(id).then((s) => s.status, (e: unknown) => (isNotFound(e) ? 'gone' : Promise.reject(e)));

before(async () => {
  cloud = await startCloud();
  const compute = await cloud.session('demo', 'compute', { retry: FAST_RETRY });
  servers = new NovaServersClient(compute);
  nova = new NovaResourcesClient(compute);
  neutron = new NeutronClient(await cloud.session('demo', 'network'));
  const net = await neutron.networks.create({ name: 'nova-test' });
  networkId = net.id;
  subnetId = (await neutron.subnets.create({ network_id: net.id, ip_version: 4, cidr: '10.20.0.0/24' })).id;
  imageId = cloud.sims.glance.state.byName('fedora-coreos-43')!.id;
});
after(() => cloud.close());

describe('nova', () => {
  test('the name filter is anchored and escaped', () => {
    assert.equal(exactNameRegex('k8s-a.b-master-0'), '^k8s-a\\.b-master-0$');
    assert.equal(exactNameRegex('x(1)+[y]'), '^x\\(1\\)\\+\\[y\\]$');
  });

  test('a server on a pre-created port, tagged at create, in a group; found by exact name and tags; deleted', async () => {
    const group = await nova.createServerGroup({ name: 'workers', policy: 'soft-anti-affinity' });
    await nova.createKeypair({ name: 'boot-key', public_key: sshPublicKey() });
    const port = await neutron.ports.create({ network_id: networkId, fixed_ips: [{ subnet_id: subnetId, ip_address: '10.20.0.50' }], tags: ['cluster:c2'] });
    const created = await servers.create(
      {
        name: 'c2-node-1',
        flavorRef: '2',
        imageRef: imageId,
        networks: [{ port: port.id }],
        key_name: 'boot-key',
        user_data: Buffer.from('#cloud-config\n{}\n').toString('base64'),
        metadata: { cluster: 'c2', role: 'worker' },
        tags: ['cluster:c2', 'role:worker'],
        availability_zone: 'nova',
      },
      { group: group.id },
    );
    assert.ok(created.id);
    assert.ok(created.links.some((l) => l.rel === 'self'));

    const building = await servers.get(created.id);
    assert.equal(building.name, 'c2-node-1');
    const active = await waitFor(() => servers.get(created.id), (s) => s.status !== 'BUILD', 5000);
    assert.equal(active.status, 'ACTIVE', JSON.stringify(active.fault));
    assert.deepEqual(active.tags?.sort(), ['cluster:c2', 'role:worker']);
    assert.deepEqual(active.metadata, { cluster: 'c2', role: 'worker' });
    assert.equal(active.key_name, 'boot-key');
    assert.equal(active['OS-EXT-AZ:availability_zone'], 'nova');
    assert.deepEqual(Object.values(active.addresses).flat().map((a) => a.addr), ['10.20.0.50']);
    assert.equal((await neutron.ports.get(port.id)).device_id, created.id);
    assert.deepEqual((await nova.getServerGroup(group.id)).members, [created.id]);

    // Exact name only: `c2-node-1` must not find `c2-node-10`, however Nova matches.
    const similar = await servers.create({ name: 'c2-node-10', flavorRef: '2', imageRef: imageId, networks: [{ uuid: networkId }], tags: ['cluster:c2'] });
    assert.deepEqual((await servers.list({ name: 'c2-node-1' })).map((s) => s.id), [created.id]);
    assert.deepEqual((await servers.list({ tags: ['cluster:c2', 'role:worker'] })).map((s) => s.id), [created.id]);
    assert.deepEqual((await servers.list({ tags: ['cluster:c2'] })).map((s) => s.id).sort(), [created.id, similar.id].sort());
    assert.deepEqual((await servers.list({ tagsAny: ['role:worker', 'nope'] })).map((s) => s.id), [created.id]);

    await servers.addTag(created.id, 'drained');
    assert.ok((await servers.listTags(created.id)).includes('drained'));
    assert.equal(await servers.deleteTag(created.id, 'drained'), true);
    assert.equal(await servers.deleteTag(created.id, 'drained'), false);
    assert.deepEqual(await servers.replaceTags(created.id, ['cluster:c2']), ['cluster:c2']);

    for (const id of [created.id, similar.id]) assert.equal(await servers.delete(id), true);
    await waitFor(() => statusOf(created.id), (s) => s === 'gone', 5000);
    await waitFor(() => statusOf(similar.id), (s) => s === 'gone', 5000);
    assert.equal(await servers.delete(created.id), false);
    assert.equal(await neutron.ports.delete(port.id), true, 'a port we made survives the server, unbound');
    await nova.deleteServerGroup(group.id);
    await nova.deleteKeypair('boot-key');
  });

  test('boot from volume: a block device mapping from the image', async () => {
    const created = await servers.create({
      name: 'bfv',
      flavorRef: '2',
      networks: [{ uuid: networkId }],
      block_device_mapping_v2: [{ boot_index: 0, uuid: imageId, source_type: 'image', destination_type: 'volume', volume_size: 20, delete_on_termination: true }],
    });
    const server = await waitFor(() => servers.get(created.id), (s) => s.status !== 'BUILD', 5000);
    assert.equal(server.status, 'ACTIVE', JSON.stringify(server.fault));
    assert.equal(server.image, '', 'booted from a volume');
    assert.equal(server['os-extended-volumes:volumes_attached']?.length, 1);
    assert.equal(await servers.delete(created.id), true);
    await waitFor(() => statusOf(created.id), (s) => s === 'gone', 5000);
  });

  test('tags cannot change while the server builds (409, not retried: the caller waits for ACTIVE)', async () => {
    cloud.sims.nova.state.clock.setDelay('nova.server.boot', { kind: 'fixed', ms: 1_000_000 });
    try {
      const created = await servers.create({ name: 'slow', flavorRef: '2', imageRef: imageId, networks: 'none' });
      const e = await failure(() => servers.addTag(created.id, 'late'));
      assert.deepEqual([e.status, e.kind], [409, 'conflict']);
      assert.match(e.fault.message ?? '', /vm_state building/);
      await servers.delete(created.id);
    } finally {
      cloud.sims.nova.state.clock.setDelay('nova.server.boot', DEFAULT_DELAYS['nova.server.boot']);
    }
  });
});
