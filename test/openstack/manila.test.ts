// The Manila client (src/openstack/manila.ts) against the simulator: the shares a cluster's Manila CSI made,
// found by their metadata at microversion 2.65, and deleted (again: false).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { requestJson, type CallRecord, type Session } from '../../src/openstack/http.js';
import { MANILA_MICROVERSION, ManilaClient } from '../../src/openstack/manila.js';
import { startCloud, type Cloud } from './cloud.js';

let cloud: Cloud;
let session: Session;
const calls: CallRecord[] = [];
before(async () => {
  cloud = await startCloud();
  session = await cloud.session('demo', 'shared-file-system', { calls });
});
after(() => cloud.close());

const makeShare = async (name: string, metadata: Record<string, string>) =>
  (await requestJson<{ share: { id: string } }>(session, { method: 'POST', path: '/shares', body: { share: { name, share_proto: 'NFS', size: 1, metadata } }, operation: 'shares.create' })).body.share.id;

test('shares found by metadata (the cluster’s only), sending the microversion; deleted once', async () => {
  const cluster = { 'manila.csi.openstack.org/cluster': 'c-1' };
  const a = await makeShare('pvc-a', cluster);
  const b = await makeShare('pvc-b', cluster);
  await makeShare('pvc-other', { 'manila.csi.openstack.org/cluster': 'c-2' });
  const manila = new ManilaClient(session);
  calls.length = 0;
  const found = await manila.listShares({ metadata: cluster });
  assert.deepEqual(found.map((s) => s.id).sort(), [a, b].sort());
  assert.ok(found.every((s) => s.share_proto === 'NFS' && s.size === 1 && s.metadata['manila.csi.openstack.org/cluster'] === 'c-1'));
  assert.equal(calls.length, 1);
  assert.equal(MANILA_MICROVERSION, '2.65');
  assert.ok((await manila.listShares()).length >= 3, 'without a filter, every share of the project');
  assert.equal(await manila.deleteShare(a), true);
  assert.equal(await manila.deleteShare('00000000-0000-4000-8000-000000000000'), false);
});
