// The worker's access to a cluster's Kubernetes API (src/steps/kube.ts), on a cluster made in memory against the
// simulated cloud and its simulated Kubernetes: a system:masters client of the cluster CA at its API address, one
// per run and closed when the run ends; none (or a NotReady failure in a step) without an address, a credential
// or a CA.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { StepFailure } from '../../src/steps/errors.js';
import { forgetKubeIdentity, kubeClient, kubeFor } from '../../src/steps/kube.js';
import { create, startStepCloud, stepRun, type StepCloud } from '../support/run-context.js';

let cloud: StepCloud;
before(async () => {
  cloud = await startStepCloud();
});
after(async () => {
  await cloud.close();
});

test('a step\'s client answers as system:masters at the API address, one per run, released when the run ends', async () => {
  const r = await stepRun(cloud, { masters: 1, workers: 0 });
  await create(r, 'api_ready');
  r.fresh();
  const kube = await kubeFor(r.ctx);
  assert.equal(await kubeFor(r.ctx), kube, 'one per run');
  assert.equal(await kube.readyz(), true);
  assert.ok((await kube.listNodes()).length >= 1, 'it may list Nodes: cluster-wide rights');
  let closed = 0;
  const close = kube.close.bind(kube);
  kube.close = () => {
    closed++;
    close();
  };
  r.end();
  assert.equal(closed, 1, 'its connections go with the run');
  r.fresh();
  assert.notEqual(await kubeFor(r.ctx), kube, 'the next run makes its own');
  forgetKubeIdentity(r.uuid);
  r.fresh();
  assert.equal(await (await kubeFor(r.ctx)).readyz(), true, 'a new identity issued once forgotten');
  r.end();
});

test('none without an API address, a credential or a CA; a step asking fails as NotReady on the control plane', async () => {
  const r = await stepRun(cloud);
  assert.equal(await kubeClient(r.ctx.ds, cloud.factory, r.ctx.cluster), undefined, 'no address yet');
  await assert.rejects(kubeFor(r.ctx), (e) => e instanceof StepFailure && e.reason === 'NotReady' && e.condition === 'control_plane');
  const address = 'https://203.0.113.10:6443';
  const noCred = await stepRun(cloud, { credential: false, cluster: { api_address: address } });
  assert.equal(await kubeClient(noCred.ctx.ds, cloud.factory, noCred.ctx.cluster), undefined);
  const noCa = await stepRun(cloud, { pki: false, cluster: { api_address: address } });
  assert.equal(await kubeClient(noCa.ctx.ds, cloud.factory, noCa.ctx.cluster), undefined);
  const ready = await stepRun(cloud, { cluster: { api_address: address } });
  const client = await kubeClient(ready.ctx.ds, cloud.factory, ready.ctx.cluster);
  assert.ok(client, 'an address, a credential and a CA: a client');
  assert.equal(await client.readyz(), false, 'nothing serves that address');
  client.close();
});
