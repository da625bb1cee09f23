// Manila CSI (src/features/manila-csi/steps.ts, label manila_csi_enabled), with an in-memory run context against
// the simulated Manila: the create checks the cloud offers Manila (a failure on the add-ons naming the label
// otherwise); the delete keeps the shares the cluster's CSI made and lists them, unless manila_csi_delete_shares
// asks, then deletes them and waits; another cluster's shares are never matched.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import '../../../src/features/registry.js';
import { MANILA_CLUSTER_KEY } from '../../../src/features/manila-csi/addon.js';
import { ensureManilaService, purgeShares } from '../../../src/features/manila-csi/steps.js';
import { StepFailure, Wait } from '../../../src/steps/errors.js';
import { startStepCloud, stepRun, withoutService, type StepCloud, type StepRun } from '../../support/run-context.js';

let cloud: StepCloud;
before(async () => {
  cloud = await startStepCloud();
});
after(async () => {
  await cloud.close();
});

const MANILA = { manila_csi_enabled: 'true' };

/** Shares as the cluster's CSI plugin makes them: with the cluster's credential, through Manila's API. */
async function shares(r: StepRun): Promise<{ mine: string; theirs: string }> {
  const c = r.db.clusters.get(r.uuid)!;
  const auth = await cloud.keystone.app.inject({
    method: 'POST', url: '/v3/auth/tokens',
    payload: { auth: { identity: { methods: ['application_credential'], application_credential: { id: c.app_cred_id, secret: cloud.factory.credentialSecret(c) } } } },
  });
  assert.equal(auth.statusCode, 201, auth.body);
  const make = async (name: string, cluster: string) => {
    const res = await cloud.sims.manila.app.inject({
      method: 'POST', url: '/v2/shares',
      headers: { 'x-auth-token': auth.headers['x-subject-token'] as string, 'x-openstack-manila-api-version': '2.65' },
      payload: { share: { share_proto: 'NFS', size: 1, name, share_type: 'default', metadata: { [MANILA_CLUSTER_KEY]: cluster } } },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().share.id as string;
  };
  const out = { mine: await make('pvc-a', r.uuid), theirs: await make('pvc-b', '9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d') };
  const m = await r.clients().manila();
  for (let i = 0; i < 500 && (await m.listShares({})).some((x) => x.status !== 'available'); i++) await sleep(5);
  return out;
}

const live = async (r: StepRun) => (await (await r.clients().manila()).listShares({})).map((s) => s.id).sort();

test('the create checks Manila is offered only when asked; a cloud without it fails on the add-ons, naming the label', async () => {
  await withoutService(cloud, 'sharev2', async () => {
    const off = await stepRun(cloud);
    await off.run(ensureManilaService);
    const on = await stepRun(cloud, { template: { labels: MANILA } });
    await assert.rejects(on.run(ensureManilaService), (e) => e instanceof StepFailure && e.reason === 'ManilaUnavailable' && e.condition === 'addons' && /manila_csi_enabled/.test(e.message));
  });
  const on = await stepRun(cloud, { template: { labels: MANILA } });
  await on.run(ensureManilaService);
  assert.deepEqual([ensureManilaService.before, purgeShares.after, purgeShares.before], [['addons'], ['server_groups'], ['credential']]);
});

test('the delete keeps the cluster\'s shares and lists them; with manila_csi_delete_shares=true they go; another cluster\'s never', async () => {
  const keep = await stepRun(cloud, { template: { labels: MANILA } });
  const k = await shares(keep);
  keep.begin('delete');
  await keep.run(purgeShares);
  assert.deepEqual(await live(keep), [k.mine, k.theirs].sort());
  assert.equal(keep.recorded.events.find((e) => e.reason === 'SharesKept')?.message, `Kept 1 Manila share(s) made by the cluster's CSI: ${k.mine}.`);

  const drop = await stepRun(cloud, { template: { labels: { ...MANILA, manila_csi_delete_shares: 'true' } } });
  const d = await shares(drop);
  drop.begin('delete');
  await assert.rejects(drop.once(purgeShares), Wait);
  await drop.run(purgeShares);
  assert.deepEqual(await live(drop), [d.theirs]);
  await withoutService(cloud, 'sharev2', async () => {
    const none = await stepRun(cloud, { template: { labels: MANILA } });
    await none.run(purgeShares);
  });
});
