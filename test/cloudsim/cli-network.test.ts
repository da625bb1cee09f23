// The real `openstack` CLI against the Neutron and Cinder simulators: what a cluster's network
// needs (network, subnet, router with a gateway and an interface, port, security group and rule,
// floating IP) and volumes, created, listed and deleted in dependency order.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { CloudSims } from '../../cloudsim/cloud.js';
import type { KeystoneSim } from '../../cloudsim/keystone/index.js';
import { startKeystone, startSims } from '../support/app.js';
import { cliFor, type Cli } from '../support/cli.js';
import { waitFor } from '../support/http.js';
import { assertFreshIndexes } from './fresh-indexes.js';

let keystone: KeystoneSim;
let sims: CloudSims;
let cli: Cli;

before(async () => {
  keystone = await startKeystone();
  sims = await startSims(keystone);
  cli = await cliFor(`http://127.0.0.1:${(keystone.app.server.address() as AddressInfo).port}/v3`);
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
};

test('network, subnet, router, port, security group and floating IP: create, list, delete', async () => {
  const net = await cli.json('demo', ['network', 'create', '--tag', 'cluster=c1', 'k8s-net']);
  assert.deepEqual([net.name, net.status], ['k8s-net', 'ACTIVE']);
  const subnet = await cli.json('demo', ['subnet', 'create', '--network', 'k8s-net', '--subnet-range', '10.0.0.0/24', '--dns-nameserver', '8.8.8.8', 'k8s-subnet']);
  assert.deepEqual([subnet.cidr, subnet.gateway_ip], ['10.0.0.0/24', '10.0.0.1']);
  const router = await cli.json('demo', ['router', 'create', 'k8s-router']);
  await ok(['router', 'set', '--external-gateway', 'public', 'k8s-router']);
  await ok(['router', 'add', 'subnet', 'k8s-router', 'k8s-subnet']);
  const sg = await cli.json('demo', ['security', 'group', 'create', 'k8s-api']);
  await cli.json('demo', ['security', 'group', 'rule', 'create', '--protocol', 'tcp', '--dst-port', '6443', '--ingress', 'k8s-api']);
  const port = await cli.json('demo', ['port', 'create', '--network', 'k8s-net', '--security-group', 'k8s-api', 'node-0']);
  assert.match(JSON.stringify(port.fixed_ips), /10\.0\.0\.\d+/);
  const fip = await cli.json('demo', ['floating', 'ip', 'create', '--port', port.id, 'public']);
  assert.match(fip.floating_ip_address, /^127\.24\.4\.\d+$/);
  assert.equal(fip.port_id, port.id);

  const tagged = await cli.json<{ Name: string }[]>('demo', ['network', 'list', '--tags', 'cluster=c1']);
  assert.deepEqual(tagged.map((n) => n.Name), ['k8s-net']);
  const rules = await cli.json<{ 'Port Range': string }[]>('demo', ['security', 'group', 'rule', 'list', 'k8s-api']);
  assert.ok(rules.some((r) => r['Port Range'] === '6443:6443'));
  const shownRouter = await cli.json('demo', ['router', 'show', router.id]);
  assert.equal(shownRouter.external_gateway_info.network_id, [...sims.neutron.state.networks.values()].find((n) => n.name === 'public')!.id);

  const inUse = await cli.run('demo', ['network', 'delete', 'k8s-net']);
  assert.notEqual(inUse.code, 0, 'a network with ports is in use');
  await ok(['floating', 'ip', 'delete', fip.id]);
  await ok(['port', 'delete', 'node-0']);
  await ok(['router', 'remove', 'subnet', 'k8s-router', 'k8s-subnet']);
  await ok(['router', 'delete', 'k8s-router']);
  await ok(['subnet', 'delete', 'k8s-subnet']);
  await ok(['network', 'delete', 'k8s-net']);
  await ok(['security', 'group', 'delete', sg.id]);
  const demoId = keystone.state.projectId('demo');
  const left = sims.audit(demoId).projects.flatMap((p) => p.resources).filter((r) => r.service === 'neutron' && r.name !== 'default');
  assert.deepEqual(left, []);
});

test('volume create, list, show and delete', async () => {
  const vol = await cli.json('demo', ['volume', 'create', '--size', '2', '--property', 'cluster=c1', 'etcd-0']);
  assert.deepEqual([vol.name, vol.size], ['etcd-0', 2]);
  await waitFor(async () => sims.cinder.state.volumes.get(vol.id)?.status, (s) => s === 'available');
  const listed = await cli.json<{ Name: string; Status: string; Size: number }[]>('demo', ['volume', 'list']);
  assert.deepEqual(listed.map((v) => [v.Name, v.Status, v.Size]), [['etcd-0', 'available', 2]]);
  assert.deepEqual(await cli.json('other', ['volume', 'list']), []);
  const shown = await cli.json('demo', ['volume', 'show', 'etcd-0']);
  assert.match(JSON.stringify(shown.properties), /cluster/);
  await ok(['volume', 'delete', 'etcd-0']);
  await waitFor(async () => sims.cinder.state.volumes.has(vol.id), (present) => !present);
});

test('image list and show: the seed images with their os_distro', async () => {
  const images = await cli.json<{ Name: string; Status: string }[]>('demo', ['image', 'list']);
  const names = images.map((i) => i.Name);
  assert.ok(names.includes('fedora-coreos-43') && names.includes('ubuntu-24.04'), names.join(', '));
  assert.ok(images.every((i) => i.Status === 'active'));
  const fcos = await cli.json('demo', ['image', 'show', 'fedora-coreos-43']);
  assert.equal(fcos.properties?.os_distro ?? fcos.os_distro, 'fedora-coreos');
});
