// Cinder CSI's volumes at a cluster's delete (src/features/cinder-csi/steps.ts), with an in-memory run context
// against the simulated Cinder: the volumes the cluster's CSI made (its uuid in their metadata) are kept and listed
// in an event unless cinder_csi_delete_volumes asks; then those that can go are deleted and the step waits until
// none is left. Another cluster's and the project's own are never touched. The step sits after the servers and
// before the credential.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import '../../../src/features/registry.js';
import { purgeVolumes } from '../../../src/features/cinder-csi/steps.js';
import { Wait } from '../../../src/steps/errors.js';
import { startStepCloud, stepRun, type StepCloud, type StepRun } from '../../support/run-context.js';

let cloud: StepCloud;
before(async () => {
  cloud = await startStepCloud();
});
after(async () => {
  await cloud.close();
});

async function volumes(r: StepRun): Promise<{ mine: string; theirs: string; own: string }> {
  const c = await r.clients().cinder();
  const make = async (name: string, metadata: Record<string, string>) => (await c.createVolume({ name, size: 1, metadata })).id;
  const out = {
    mine: await make('pvc-1', { 'cinder.csi.openstack.org/cluster': r.uuid }),
    theirs: await make('pvc-2', { 'cinder.csi.openstack.org/cluster': '9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d' }),
    own: await make('data', {}),
  };
  for (let i = 0; i < 500 && (await c.listVolumes({})).some((v) => v.status === 'creating'); i++) await sleep(5);
  return out;
}

const live = async (r: StepRun) => (await (await r.clients().cinder()).listVolumes({})).map((v) => v.id).sort();

test('by default the cluster\'s CSI volumes are kept and listed in a warning; nothing else is looked at', async () => {
  const r = await stepRun(cloud);
  const v = await volumes(r);
  r.begin('delete');
  await r.run(purgeVolumes);
  assert.deepEqual(await live(r), [v.mine, v.theirs, v.own].sort());
  const kept = r.recorded.events.find((e) => e.reason === 'VolumesKept');
  assert.equal(kept?.severity, 'warning');
  assert.equal(kept?.message, `Kept 1 volume(s) made by the cluster's CSI: ${v.mine}.`);
});

test('with cinder_csi_delete_volumes=true the cluster\'s go, the step waiting until they are gone; the others stay', async () => {
  const r = await stepRun(cloud, { template: { labels: { cinder_csi_delete_volumes: 'true' } } });
  const v = await volumes(r);
  r.begin('delete');
  await assert.rejects(r.once(purgeVolumes), (e) => e instanceof Wait && e.why === '1 volume(s) being deleted');
  await r.run(purgeVolumes);
  assert.deepEqual(await live(r), [v.theirs, v.own].sort());
  assert.equal(r.recorded.events.length, 0);
});

test('its place: after the server groups, before the credential; without a credential it does nothing', async () => {
  assert.deepEqual([purgeVolumes.name, purgeVolumes.after, purgeVolumes.before], ['volumes', ['server_groups'], ['credential']]);
  const r = await stepRun(cloud, { credential: false });
  await r.run(purgeVolumes);
});
