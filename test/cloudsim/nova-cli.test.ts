// The real `openstack` CLI (python3-openstackclient 6, novaclient at 2.1 for servers, the SDK for
// keypairs and server groups) against the Nova simulator: what the CLI cannot parse is a bug of
// the simulator. Servers boot on a network of the project with a keypair, wait ACTIVE, are
// listed, shown and deleted with --wait; keypairs, an anti-affinity group, quotas and limits.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import type { AddressInfo } from 'node:net';
import type { CloudSims } from '../../cloudsim/cloud.js';
import type { KeystoneSim } from '../../cloudsim/keystone/index.js';
import { startKeystone, startSims } from '../support/app.js';
import { cliFor, type Cli } from '../support/cli.js';
import { assertFreshIndexes } from './fresh-indexes.js';

let keystone: KeystoneSim;
let sims: CloudSims;
let cli: Cli;
let network: string;

before(async () => {
  keystone = await startKeystone();
  sims = await startSims(keystone);
  cli = await cliFor(`http://127.0.0.1:${(keystone.app.server.address() as AddressInfo).port}/v3`);
  const demo = [...keystone.state.projects.values()].find((p) => p.name === 'demo')!.id;
  const n = sims.neutron.state.addNetwork({ name: 'k8s-net', projectId: demo });
  network = n.id;
  sims.neutron.state.addSubnet({ networkId: n.id, name: 'k8s-subnet', cidr: '10.0.0.0/24', gatewayIp: '10.0.0.1', allocationPools: [{ start: '10.0.0.2', end: '10.0.0.254' }] });
});
after(async () => {
  await cli?.close();
  if (sims) assertFreshIndexes(sims);
  await sims?.close();
  await keystone?.app.close();
});

const ok = async (args: string[]) => {
  const r = await cli.run('demo', args);
  assert.equal(r.code, 0, `openstack ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
};

test('keypair create (generated and imported), list, show, delete', { timeout: 300_000 }, async () => {
  const generated = await ok(['keypair', 'create', 'gen']);
  assert.match(generated, /-----BEGIN RSA PRIVATE KEY-----/);
  const pub = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMRsGmEQF5Uk+w/hKV+80J+/d0dN0as4TtNE9jrsYEEo test@cloudsim';
  const dir = await mkdtemp(`${tmpdir()}/nova-cli-`);
  try {
    await writeFile(`${dir}/k.pub`, `${pub}\n`);
    const imported = await cli.json('demo', ['keypair', 'create', '--public-key', `${dir}/k.pub`, 'k']);
    assert.equal(imported.fingerprint, '2a:c3:02:65:37:d9:5d:fa:2f:7b:1d:1f:37:4d:6b:29');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const list = await cli.json<{ Name: string; Fingerprint: string }[]>('demo', ['keypair', 'list']);
  assert.deepEqual(list.map((k) => k.Name), ['gen', 'k']);
  const shown = await cli.json('demo', ['keypair', 'show', 'k']);
  assert.equal(shown.name, 'k');
  const dup = await cli.run('demo', ['keypair', 'create', 'k']);
  assert.notEqual(dup.code, 0);
  assert.match(dup.stderr, /already exists/);
  await ok(['keypair', 'delete', 'gen']);
  assert.deepEqual((await cli.json<{ Name: string }[]>('demo', ['keypair', 'list'])).map((k) => k.Name), ['k']);
});

test('server create --wait, list, show, delete --wait', { timeout: 300_000 }, async () => {
  const image = [...sims.glance.state.images.values()].find((i) => i.name === 'cirros')!.id;
  const server = await cli.json('demo', ['server', 'create', '--flavor', 'm1.small', '--image', image, '--network', network, '--key-name', 'k', '--property', 'role=worker', '--wait', 'node-0']);
  assert.equal(server.status, 'ACTIVE');
  assert.equal(server.name, 'node-0');
  assert.equal(server.key_name, 'k');
  assert.match(JSON.stringify(server.addresses), /k8s-net.*10\.0\.0\.\d+/);
  assert.match(JSON.stringify(server.flavor), /m1\.small/);
  assert.match(JSON.stringify(server.image), /cirros/);

  const list = await cli.json<{ ID: string; Name: string; Status: string; Networks: unknown; Flavor: string }[]>('demo', ['server', 'list']);
  assert.deepEqual(list.map((s) => [s.Name, s.Status]), [['node-0', 'ACTIVE']]);
  assert.equal(list[0]!.Flavor, 'm1.small');
  assert.match(JSON.stringify(list[0]!.Networks), /10\.0\.0\.\d+/);
  const filtered = await cli.json<unknown[]>('demo', ['server', 'list', '--name', '^node-0$', '--status', 'ACTIVE']);
  assert.equal(filtered.length, 1);

  const shown = await cli.json('demo', ['server', 'show', 'node-0']);
  assert.equal(shown.id, server.id);
  assert.equal(shown['OS-EXT-STS:vm_state'], 'active');
  assert.match(JSON.stringify(shown.properties), /role.*worker/);
  const port = [...sims.neutron.state.ports.values()].find((p) => p.deviceId === server.id)!;
  assert.equal(port.deviceOwner, `compute:${shown['OS-EXT-AZ:availability_zone']}`);

  await ok(['server', 'delete', '--wait', 'node-0']);
  assert.deepEqual(await cli.json('demo', ['server', 'list']), []);
  assert.equal(sims.neutron.state.ports.has(port.id), false);
});

test('at 2.79: tags at create, list by tag, embedded flavor, boot from volume', { timeout: 300_000 }, async () => {
  const image = [...sims.glance.state.images.values()].find((i) => i.name === 'cirros')!.id;
  const v = ['--os-compute-api-version', '2.79'];
  const server = await cli.json('demo', [...v, 'server', 'create', '--flavor', 'm1.small', '--image', image, '--boot-from-volume', '5', '--network', network, '--tag', 'cluster=c1', '--wait', 'tagged']);
  assert.equal(server.status, 'ACTIVE');
  assert.match(String(server.image), /booted from volume/);
  assert.match(JSON.stringify(server.flavor), /m1\.small/);
  const attached = sims.nova.state.servers.get(server.id)!.blockDevices[0]!;
  assert.equal(sims.cinder.state.volumes.get(attached.volumeId!)?.status, 'in-use');
  const tagged = await cli.json<{ Name: string }[]>('demo', [...v, 'server', 'list', '--tags', 'cluster=c1']);
  assert.deepEqual(tagged.map((s) => s.Name), ['tagged']);
  assert.deepEqual(await cli.json('demo', [...v, 'server', 'list', '--tags', 'cluster=other']), []);
  await ok([...v, 'server', 'delete', '--wait', 'tagged']);
});

test('server group create --policy anti-affinity, list, show, delete', { timeout: 300_000 }, async () => {
  const group = await cli.json('demo', ['server', 'group', 'create', '--policy', 'anti-affinity', 'masters']);
  assert.equal(group.name, 'masters');
  assert.match(JSON.stringify(group), /anti-affinity/);
  const list = await cli.json<{ Name: string }[]>('demo', ['server', 'group', 'list']);
  assert.deepEqual(list.map((g) => g.Name), ['masters']);
  const shown = await cli.json('demo', ['server', 'group', 'show', 'masters']);
  assert.equal(shown.id, group.id);
  await ok(['server', 'group', 'delete', 'masters']);
  assert.deepEqual(await cli.json('demo', ['server', 'group', 'list']), []);
});

// `openstack quota show` also asks Cinder for os-quota-sets, which the Cinder simulator does not
// serve yet: the compute quotas are read with `quota list --compute` (admin) instead.
test('quota set and list --compute (admin), limits show', { timeout: 300_000 }, async () => {
  const admin = async (args: string[]) => {
    const r = await cli.run('admin', args);
    assert.equal(r.code, 0, `openstack ${args.join(' ')}: ${r.stderr}`);
  };
  await admin(['quota', 'set', '--cores', '30', '--server-groups', '5', 'demo']);
  const quotas = await cli.json<Record<string, unknown>[]>('admin', ['quota', 'list', '--compute']);
  const demo = quotas.find((q) => q['Project ID'] === [...keystone.state.projects.values()].find((p) => p.name === 'demo')!.id)!;
  assert.ok(demo, JSON.stringify(quotas));
  assert.equal(demo.Cores, 30);
  assert.equal(demo.Instances, 10);
  assert.equal(demo['Server Groups'], 5);
  assert.equal(demo['Key Pairs'], 100);
  const limits = await cli.json<{ Name: string; Value: number }[]>('demo', ['limits', 'show', '--absolute']);
  const value = (name: string) => limits.find((l) => l.Name === name)?.Value;
  assert.equal(value('maxTotalCores'), 30);
  assert.equal(value('totalInstancesUsed'), 0);
  assert.equal(value('maxServerGroups'), 5);
});
