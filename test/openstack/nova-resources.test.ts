// The Nova resources client (src/openstack/nova-resources.ts) against the simulator at NOVA_MICROVERSION:
// keypairs (per user), server groups with their policy and rules, the project's limits and quota usage.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { NovaResourcesClient } from '../../src/openstack/nova-resources.js';
import { failure } from '../support/openstack.js';
import { startCloud, type Cloud } from './cloud.js';

let cloud: Cloud;
let nova: NovaResourcesClient;

/** An OpenSSH ed25519 public key line. */
function sshPublicKey(): string {
  const raw = Buffer.from(generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x!, 'base64url');
  const field = (b: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, b.length]), b]);
  return `ssh-ed25519 ${Buffer.concat([field(Buffer.from('ssh-ed25519')), field(raw)]).toString('base64')} test`;
}

before(async () => {
  cloud = await startCloud();
  nova = new NovaResourcesClient(await cloud.session('demo', 'compute'));
});
after(() => cloud.close());

describe('nova resources', () => {
  test('keypairs: imported, read back by name, 409 on a duplicate, deleted', async () => {
    const publicKey = sshPublicKey();
    const kp = await nova.createKeypair({ name: 'cluster-key', public_key: publicKey, type: 'ssh' });
    assert.deepEqual([kp.name, kp.public_key], ['cluster-key', publicKey]);
    assert.match(kp.fingerprint, /^([0-9a-f]{2}:){15}[0-9a-f]{2}$/);
    assert.equal((await nova.getKeypair('cluster-key')).fingerprint, kp.fingerprint);
    assert.equal((await failure(() => nova.createKeypair({ name: 'cluster-key', public_key: publicKey }))).status, 409);
    const other = new NovaResourcesClient(await cloud.session('other', 'compute'));
    assert.equal((await failure(() => other.getKeypair('cluster-key'))).status, 404, 'keypairs belong to their user');
    assert.equal(await nova.deleteKeypair('cluster-key'), true);
    assert.equal(await nova.deleteKeypair('cluster-key'), false);
  });

  test('server groups: policy and rules, listed by name, deleted', async () => {
    const group = await nova.createServerGroup({ name: 'masters', policy: 'anti-affinity', rules: { max_server_per_host: 1 } });
    assert.deepEqual([group.policy, group.rules?.max_server_per_host, group.members], ['anti-affinity', 1, []]);
    assert.equal((await nova.getServerGroup(group.id)).name, 'masters');
    assert.deepEqual((await nova.listServerGroups({ name: 'masters' })).map((g) => g.id), [group.id]);
    assert.equal(await nova.deleteServerGroup(group.id), true);
    assert.equal(await nova.deleteServerGroup(group.id), false);
  });

  test('limits and quota usage count the project\'s servers and groups', async () => {
    const limits = await nova.limits();
    assert.equal(typeof limits.maxTotalInstances, 'number');
    assert.equal(typeof limits.maxServerGroupMembers, 'number');
    const quota = await nova.quotaDetail(cloud.projectId('demo'));
    assert.equal(typeof quota.server_group_members.limit, 'number');
    assert.equal(typeof quota.instances.in_use, 'number');
    assert.equal((await failure(() => nova.quotaDetail(cloud.projectId('other')))).status, 403);
  });
});
