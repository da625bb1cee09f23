// The real `openstack` CLI with python3-designateclient against the Designate simulator: zones
// and recordsets as an operator would manage them (version discovery, zone lookup by name,
// relative recordset names, the error the client prints for a duplicate).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { CloudSims } from '../../cloudsim/cloud.js';
import type { KeystoneSim } from '../../cloudsim/keystone/index.js';
import { startKeystone, startSims } from '../support/app.js';
import { cliFor, type Cli } from '../support/cli.js';
import { ensureCliPlugins } from './cli-support.js';
import { waitFor } from '../support/http.js';
import { assertFreshIndexes } from './fresh-indexes.js';

let keystone: KeystoneSim;
let sims: CloudSims;
let cli: Cli;

before(async () => {
  await ensureCliPlugins(['designate']);
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

test('zone create/list/delete and recordset create/list', async () => {
  const zone = await cli.json('demo', ['zone', 'create', '--email', 'ops@example.org', '--ttl', '600', 'cli.example.org.']);
  assert.deepEqual([zone.name, zone.status, zone.action, zone.ttl], ['cli.example.org.', 'PENDING', 'CREATE', 600]);
  await waitFor(async () => sims.designate.state.zones.get(zone.id)?.status, (s) => s === 'ACTIVE');

  const zones = await cli.json<{ id: string; name: string; status: string }[]>('demo', ['zone', 'list']);
  assert.deepEqual(zones.map((z) => [z.name, z.status]), [['cli.example.org.', 'ACTIVE']]);
  assert.deepEqual(await cli.json('other', ['zone', 'list']), [], 'another project sees nothing');

  const dup = await cli.run('demo', ['zone', 'create', '--email', 'ops@example.org', 'cli.example.org.']);
  assert.notEqual(dup.code, 0);
  assert.match(dup.stderr, /Duplicate Zone/);

  // A relative name: the client appends the zone's name after looking the zone up by name.
  const rs = await cli.json('demo', ['recordset', 'create', '--type', 'A', '--record', '192.0.2.7', '--record', '192.0.2.8', 'cli.example.org.', 'api']);
  assert.deepEqual([rs.name, rs.type, rs.status], ['api.cli.example.org.', 'A', 'PENDING']);
  await cli.json('demo', ['recordset', 'create', '--type', 'TXT', '--record', '"hello"', 'cli.example.org.', 'cli.example.org.']);
  const listed = await cli.json<{ name: string; type: string; records: string }[]>('demo', ['recordset', 'list', 'cli.example.org.']);
  assert.deepEqual(listed.map((r) => r.type).sort(), ['A', 'NS', 'SOA', 'TXT']);
  const a = listed.find((r) => r.type === 'A')!;
  assert.match(String(a.records), /192\.0\.2\.7/);
  assert.match(String(a.records), /192\.0\.2\.8/);
  const onlyA = await cli.json<{ type: string }[]>('demo', ['recordset', 'list', '--type', 'A', 'cli.example.org.']);
  assert.deepEqual(onlyA.map((r) => r.type), ['A']);

  const del = await cli.json('demo', ['zone', 'delete', 'cli.example.org.']);
  assert.equal(del.action, 'DELETE');
  await waitFor(async () => sims.designate.state.zones.has(zone.id), (present) => !present);
  assert.deepEqual(await cli.json('demo', ['zone', 'list']), []);
});
