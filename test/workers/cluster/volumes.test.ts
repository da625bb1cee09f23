// A node's Cinder volumes (workers/cluster/volumes.ts), with an in-memory run context against the simulated
// Cinder: the boot, etcd and runtime volumes a node of each role gets, named <node>-<disk>, marked as the
// cluster's and recorded; the server's block device mapping of them, ready once Cinder made them; a create never
// recorded found again by name; a zone Cinder does not offer said once; the volumes of nodes that are gone
// dropped; and the delete's purge of what no server took.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { clusterSpec } from '../../../src/steps/context.js';
import { Wait } from '../../../src/steps/errors.js';
import { dropOrphanVolumes, nodeVolumes, purgeNodeVolumes } from '../../../workers/cluster/volumes.js';
import { Crash, crashAfterCreate, recordedOf, startStepCloud, stepRun, type StepCloud, type StepRun } from '../../support/run-context.js';

let cloud: StepCloud;
before(async () => {
  cloud = await startStepCloud();
});
after(async () => {
  await cloud.close();
});

const LABELS = { boot_volume_size: '10', etcd_volume_size: '3' };

/** nodeVolumes for `node` until Cinder has made them all. */
async function ready(r: StepRun, node: { name: string; role: 'init' | 'control-plane' | 'worker' }, zone?: string) {
  const spec = await clusterSpec(r.ctx);
  const image = (await (await r.clients().glance()).listImages({ name: 'ubuntu-24.04' }))[0]!.id;
  for (let i = 0; i < 500; i++) {
    r.fresh();
    const v = await nodeVolumes(r.ctx, node, spec.nodes, { sizeGb: 5, type: '' }, image, zone);
    if (v.ready) return { ...v, image };
    await sleep(10);
  }
  assert.fail('the volumes were never ready');
}

test('a control plane gets its boot, etcd and runtime volumes; a worker its boot and runtime ones; mapped boot first, each recorded and marked', async () => {
  const r = await stepRun(cloud, { template: { labels: LABELS } });
  const cp = await ready(r, { name: 'cp-1', role: 'init' });
  const volumes = await recordedOf(r, 'volume');
  assert.deepEqual(volumes.map(([name]) => name), ['cp-1-root', 'cp-1-etcd', 'cp-1-containerd']);
  const ids = Object.fromEntries(volumes) as Record<string, string>;
  assert.deepEqual(cp.mapping, [
    { boot_index: 0, source_type: 'volume', destination_type: 'volume', uuid: ids['cp-1-root'], delete_on_termination: true },
    { boot_index: -1, source_type: 'volume', destination_type: 'volume', uuid: ids['cp-1-etcd'], delete_on_termination: true, tag: 'etcd' },
    { boot_index: -1, source_type: 'volume', destination_type: 'volume', uuid: ids['cp-1-containerd'], delete_on_termination: true, tag: 'containerd' },
  ]);
  const cinder = await r.clients().cinder();
  const root = await cinder.getVolume(ids['cp-1-root']!);
  assert.equal(root.size, 10);
  assert.deepEqual([root.metadata?.magnum_cluster, root.metadata?.magnum_node], [r.uuid, 'cp-1']);
  assert.equal((await cinder.getVolume(ids['cp-1-etcd']!)).size, 3);
  assert.equal((await cinder.getVolume(ids['cp-1-containerd']!)).size, 5);

  await ready(r, { name: 'w-1', role: 'worker' });
  assert.deepEqual((await recordedOf(r, 'volume')).map(([name]) => name).filter((n) => n!.startsWith('w-1')), ['w-1-root', 'w-1-containerd']);
  assert.equal(r.usage().volumes, 5, 'nothing made twice over the runs that waited');
});

test('without a boot volume the image is the boot disk in the mapping; with no volume at all there is nothing to wait for', async () => {
  const r = await stepRun(cloud);
  const spec = await clusterSpec(r.ctx);
  assert.deepEqual(await nodeVolumes(r.ctx, { name: 'w', role: 'worker' }, spec.nodes, null, 'img', undefined), { ready: true, mapping: [] });
  const v = await ready(r, { name: 'w-2', role: 'worker' });
  assert.deepEqual(v.mapping[0], { boot_index: 0, source_type: 'image', uuid: v.image, destination_type: 'local', delete_on_termination: true });
  assert.equal(v.mapping.length, 2);
});

test('a volume made but never recorded is found by its name and the cluster\'s mark; a zone Cinder lacks is said once, the volumes made in its default', async () => {
  const r = await stepRun(cloud, { template: { labels: LABELS } });
  const made = crashAfterCreate(r, 'volume');
  const spec = await clusterSpec(r.ctx);
  await assert.rejects(nodeVolumes(r.ctx, { name: 'cp-2', role: 'init' }, spec.nodes, null, 'img', 'no-such-zone'), Crash);
  r.hooks.afterCreate = undefined;
  await ready(r, { name: 'cp-2', role: 'init' }, 'no-such-zone');
  assert.ok((await recordedOf(r, 'volume')).some(([, id]) => id === made[0]));
  assert.equal(r.usage().volumes, 3, 'root, etcd and containerd, once each');
  const said = r.recorded.events.filter((e) => e.reason === 'VolumeZoneUnavailable');
  assert.equal(said.length, 1, 'said once per operation');
  assert.match(said[0]!.message, /no-such-zone/);
});

test('the volumes of nodes neither live nor planned are dropped; the purge deletes what is left and waits until Cinder is done', async () => {
  const r = await stepRun(cloud, { template: { labels: LABELS } });
  await ready(r, { name: 'keep', role: 'worker' });
  await ready(r, { name: 'gone', role: 'worker' });
  r.fresh();
  await dropOrphanVolumes(r.ctx, new Set(['keep']));
  for (let i = 0; i < 200 && r.usage().volumes > 2; i++) await sleep(10);
  r.fresh();
  await dropOrphanVolumes(r.ctx, new Set(['keep']));
  assert.deepEqual((await recordedOf(r, 'volume')).map(([name]) => name), ['keep-root', 'keep-containerd']);
  assert.equal(r.usage().volumes, 2);

  r.fresh();
  await assert.rejects(r.once(purgeNodeVolumes), (e) => e instanceof Wait && /node volume/.test(e.why));
  await r.run(purgeNodeVolumes);
  assert.equal(r.usage().volumes, 0);
  assert.deepEqual(await r.ledger.live(), []);
});
