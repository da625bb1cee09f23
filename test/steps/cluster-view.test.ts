// What the periodic passes read of one settled cluster (src/steps/cluster-view.ts), on a cluster made in memory
// against the simulated cloud and Kubernetes: its spec (none when its template is gone or its labels no longer
// parse), its Nodes and its live servers by its tag, each read once per pass; nothing without a client.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { clusterView } from '../../src/steps/cluster-view.js';
import { kubeFor } from '../../src/steps/kube.js';
import { create, startStepCloud, stepRun, type StepCloud } from '../support/run-context.js';

let cloud: StepCloud;
before(async () => {
  cloud = await startStepCloud();
});
after(async () => {
  await cloud.close();
});

test('a settled cluster\'s spec, Nodes and servers, each read once', async () => {
  const r = await stepRun(cloud, { masters: 1, workers: 1 });
  await create(r);
  r.fresh();
  const kube = await kubeFor(r.ctx);
  let lists = 0;
  const listNodes = kube.listNodes.bind(kube);
  kube.listNodes = () => (lists++, listNodes());
  const view = await clusterView(r.ctx.ds, r.db.clusters.get(r.uuid)!, kube, r.clients());
  assert.equal(view.spec?.cluster.uuid, r.uuid);
  const [nodes, servers] = [await view.nodes(), await view.servers()];
  assert.equal(nodes.length, 2);
  assert.deepEqual(servers.map((s) => s.name).sort(), nodes.map((n) => n.metadata.name).sort());
  await view.nodes();
  assert.equal(lists, 1, 'once per pass');
  // A server deleted is no longer the cluster's, at the next pass.
  await (await r.clients().servers()).delete(servers[0]!.id);
  let left = servers.length;
  for (let i = 0; i < 300 && left === 2; i++) {
    await new Promise((res) => setTimeout(res, 10));
    left = (await (await clusterView(r.ctx.ds, r.db.clusters.get(r.uuid)!, kube, r.clients())).servers()).length;
  }
  assert.equal(left, 1);
  assert.equal((await view.servers()).length, 2, 'a pass keeps what it read');
  r.end();
});

test('no spec when the template is gone or the labels no longer parse; no Nodes or servers without their clients', async () => {
  const r = await stepRun(cloud);
  const c = r.db.clusters.get(r.uuid)!;
  const view = await clusterView(r.ctx.ds, { ...c, labels: { ...c.labels, boot_volume_size: 'lots' } }, undefined, undefined);
  assert.equal(view.spec, undefined);
  assert.deepEqual([await view.nodes(), await view.servers()], [[], []]);
  assert.equal((await clusterView(r.ctx.ds, { ...c, cluster_template_id: 'gone' }, undefined, undefined)).spec, undefined);
  assert.ok((await clusterView(r.ctx.ds, c, undefined, undefined)).spec);
});
