// The real `openstack` CLI with python3-manilaclient against the Manila simulator: a share created
// without a type (the client asks for the default share type) and --wait, listed, shown with its
// export location, filtered by property, and deleted with --wait; share types listed and shown.
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
  await ensureCliPlugins(['manila']);
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

test('share type list/show; share create --wait (default type), list, show, export location list, delete --wait', { timeout: 300_000 }, async () => {
  const types = await cli.json<{ Name: string; 'Is Default': boolean | string }[]>('demo', ['share', 'type', 'list']);
  assert.deepEqual(types.map((t) => t.Name), ['default']);
  const type = await cli.json('demo', ['share', 'type', 'show', 'default']);
  assert.match(JSON.stringify(type.required_extra_specs), /driver_handles_share_servers/);

  const share = await cli.json('demo', ['share', 'create', 'NFS', '1', '--name', 'data', '--property', 'cluster=c1', '--wait']);
  assert.deepEqual([share.name, share.status, share.share_type_name], ['data', 'available', 'default']);
  const list = await cli.json<{ Name: string; Status: string }[]>('demo', ['share', 'list']);
  assert.deepEqual(list.map((s) => [s.Name, s.Status]), [['data', 'available']]);
  assert.deepEqual(await cli.json('other', ['share', 'list']), []);
  const shown = await cli.json('demo', ['share', 'show', 'data']);
  assert.equal(shown.id, share.id);
  assert.match(JSON.stringify(shown.export_locations), new RegExp(`/shares/share-${share.id}`));
  const locations = await cli.json<{ Path: string }[]>('demo', ['share', 'export', 'location', 'list', 'data']);
  assert.match(locations[0]!.Path, new RegExp(`:/shares/share-${share.id}$`));

  const del = await cli.run('demo', ['share', 'delete', '--wait', 'data']);
  assert.equal(del.code, 0, del.stderr);
  assert.equal(sims.manila.state.shares.size, 0);
});
