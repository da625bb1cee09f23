// The real `openstack` CLI with python3-octaviaclient against the Octavia simulator: a load
// balancer created with --wait (the client polls provisioning_status), shown, listed and deleted
// with --cascade together with its listener and pool.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { CloudSims } from '../../cloudsim/cloud.js';
import type { KeystoneSim } from '../../cloudsim/keystone/index.js';
import { startKeystone, startSims } from '../support/app.js';
import { cliFor, type Cli } from '../support/cli.js';
import { ensureCliPlugins } from './cli-support.js';
import { assertFreshIndexes } from './fresh-indexes.js';

let keystone: KeystoneSim;
let sims: CloudSims;
let cli: Cli;

before(async () => {
  await ensureCliPlugins(['octavia']);
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

test('loadbalancer create --wait / show / list / delete --cascade', async () => {
  await cli.json('demo', ['network', 'create', 'lb-net']);
  await cli.json('demo', ['subnet', 'create', '--network', 'lb-net', '--subnet-range', '10.20.0.0/24', 'lb-subnet']);
  const lb = await cli.json('demo', ['loadbalancer', 'create', '--name', 'api-lb', '--vip-subnet-id', 'lb-subnet', '--tag', 'cluster=c1', '--wait']);
  assert.equal(lb.name, 'api-lb');
  assert.match(lb.vip_address, /^10\.20\.0\.\d+$/);

  const shown = await cli.json('demo', ['loadbalancer', 'show', 'api-lb']);
  assert.deepEqual([shown.id, shown.provisioning_status, shown.operating_status], [lb.id, 'ACTIVE', 'ONLINE']);
  assert.match(String(shown.tags), /cluster=c1/);
  const port = await cli.json('demo', ['port', 'show', shown.vip_port_id]);
  assert.equal(port.device_owner, 'Octavia');

  await cli.json('demo', ['loadbalancer', 'listener', 'create', '--name', 'api', '--protocol', 'TCP', '--protocol-port', '6443', '--wait', 'api-lb']);
  await cli.json('demo', ['loadbalancer', 'pool', 'create', '--name', 'api-pool', '--listener', 'api', '--protocol', 'TCP', '--lb-algorithm', 'ROUND_ROBIN', '--wait']);
  const listed = await cli.json<{ name: string; provisioning_status: string }[]>('demo', ['loadbalancer', 'list']);
  assert.deepEqual(listed.map((l) => [l.name, l.provisioning_status]), [['api-lb', 'ACTIVE']]);
  assert.deepEqual(await cli.json('other', ['loadbalancer', 'list']), []);

  const plain = await cli.run('demo', ['loadbalancer', 'delete', 'api-lb']);
  assert.notEqual(plain.code, 0, 'children need --cascade');
  const del = await cli.run('demo', ['loadbalancer', 'delete', '--cascade', '--wait', 'api-lb']);
  assert.equal(del.code, 0, del.stderr);
  assert.equal(sims.octavia.state.loadbalancers.size, 0);
  assert.equal(sims.octavia.state.listeners.size + sims.octavia.state.pools.size, 0);
  assert.ok(![...sims.neutron.state.ports.values()].some((p) => p.id === shown.vip_port_id), 'the VIP port is released');
});
