// The Kubernetes side of a create (workers/cluster/bootstrap.ts), with an in-memory run context against the
// simulated cloud and its simulated Kubernetes: every control plane boots at once, one running kubeadm init; the
// workers after them; /readyz waited for through the endpoint; the add-ons applied; the other control planes
// given their turn to join one at a time (the ConfigMap their bootstrap reads); the cluster ready once every
// server is a Ready, initialised Node. And what a usable Node is, the credential the add-ons get, a spread of
// control planes that loses etcd's quorum with one zone said once.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { K8sObject } from '../../../src/bootstrap/addons/framework.js';
import { JOIN_TURN_CONFIGMAP } from '../../../src/bootstrap/user-data/host.js';
import type { KubeNode } from '../../../src/kube/api-client.js';
import { StepFailure, Wait } from '../../../src/steps/errors.js';
import { kubeFor } from '../../../src/steps/kube.js';
import {
  cloudCredential, ensureAddons, ensureApiReady, ensureControlPlaneInit, ensureControlPlaneJoins, ensureReady, ensureWorkers, grantJoinTurn, nodeUsable, renderClusterAddons, unready,
} from '../../../workers/cluster/bootstrap.js';
import { observedServers } from '../../../workers/cluster/ports.js';
import { audited, create, startStepCloud, stepRun, type StepCloud } from '../../support/run-context.js';

let cloud: StepCloud;
before(async () => {
  cloud = await startStepCloud();
});
after(async () => {
  await cloud.close();
});

test('a usable Node: Ready, a provider id, and no longer tainted uninitialized by the cloud provider', () => {
  const node = (ready: string, providerID?: string, taints: { key: string }[] = []) =>
    ({ metadata: { name: 'n' }, spec: { ...(providerID ? { providerID } : {}), taints }, status: { conditions: [{ type: 'Ready', status: ready }] } }) as unknown as KubeNode;
  assert.equal(nodeUsable(node('True', 'openstack:///x')), true);
  assert.equal(nodeUsable(node('False', 'openstack:///x')), false);
  assert.equal(nodeUsable(node('True')), false, 'not initialised by the cloud provider');
  assert.equal(nodeUsable(node('True', 'openstack:///x', [{ key: 'node.cloudprovider.kubernetes.io/uninitialized' }])), false);
  assert.equal(nodeUsable(node('True', 'openstack:///x', [{ key: 'dedicated' }])), true);
});

test('a create through the Kubernetes side: control planes at once (one init), workers, /readyz, add-ons, joins one at a time, every Node Ready', async () => {
  const r = await stepRun(cloud, { masters: 3, workers: 2 });
  await create(r, 'api_monitor');
  r.fresh();
  await r.run(ensureControlPlaneInit);
  const cps = (await observedServers(r.ctx)).filter((s) => s.role !== 'worker');
  assert.deepEqual(cps.map((s) => s.role).sort(), ['control-plane', 'control-plane', 'init'], 'every control plane booted at once, one init');
  assert.equal(r.db.clusters.get(r.uuid)!.conditions.control_plane?.reason, 'Booting');
  await r.run(ensureWorkers);
  r.fresh();
  assert.equal((await observedServers(r.ctx)).filter((s) => s.role === 'worker').length, 2);

  const { runs } = await r.run(ensureApiReady);
  assert.ok(runs >= 1);
  r.fresh();
  assert.equal(await (await kubeFor(r.ctx)).readyz(), true);
  await r.run(ensureAddons);
  const addons = r.db.clusters.get(r.uuid)!.conditions.addons;
  assert.equal(addons?.status, 'True');
  const rendered = (await renderClusterAddons(r.ctx)).map((a) => a.name);
  assert.equal(addons?.message, `Applied: ${rendered.join(', ')}.`);

  // The joins: each turn granted once the one before is a Node; the step waits meanwhile.
  r.fresh();
  const first = await r.once(ensureControlPlaneJoins).then(() => undefined, (e: unknown) => e);
  assert.ok(first instanceof Wait, 'waits while a control plane joins');
  const turn = await (await kubeFor(r.ctx)).get<K8sObject & { data?: { node?: string } }>('v1', 'ConfigMap', 'kube-system', JOIN_TURN_CONFIGMAP);
  const joining = cps.filter((s) => s.role === 'control-plane').map((s) => s.name).sort();
  assert.ok(joining.includes(turn?.data?.node ?? ''), 'the turn names a joining control plane');
  assert.equal(turn?.data?.node, joining[0], 'in name order');
  await r.run(ensureControlPlaneJoins);
  await r.run(ensureReady);
  const c = r.db.clusters.get(r.uuid)!.conditions;
  assert.deepEqual([c.control_plane?.status, c.workers?.status], ['True', 'True']);
  assert.equal(c.control_plane?.message, '3 control plane node(s) Ready.');
  assert.equal(c.workers?.message, '2 worker node(s) Ready.');
  r.fresh();
  assert.deepEqual(await unready(r.ctx, await kubeFor(r.ctx), await observedServers(r.ctx)), []);
  assert.deepEqual(cloud.sims.boots(r.project).repeated, [], 'no server booted twice over the runs');
  assert.equal(audited(r, 'server').length, 5);
  r.end();
});

test('grantJoinTurn names the node in the ConfigMap the bootstrap token may read, and only that', async () => {
  const r = await stepRun(cloud, { masters: 1, workers: 0 });
  await create(r, 'api_ready');
  r.fresh();
  const kube = await kubeFor(r.ctx);
  await grantJoinTurn(kube, 'cp-next');
  const cm = await kube.get<K8sObject & { data?: Record<string, string> }>('v1', 'ConfigMap', 'kube-system', JOIN_TURN_CONFIGMAP);
  assert.deepEqual(cm?.data, { node: 'cp-next' });
  const role = await kube.get<K8sObject & { rules?: { resourceNames?: string[]; verbs?: string[] }[] }>('rbac.authorization.k8s.io/v1', 'Role', 'kube-system', JOIN_TURN_CONFIGMAP);
  assert.deepEqual(role?.rules?.map((x) => [x.resourceNames, x.verbs]), [[[JOIN_TURN_CONFIGMAP], ['get']]]);
  r.end();
});

test('control planes spread so that one zone holds a quorum: said once per operation, as a warning', async () => {
  const r = await stepRun(cloud, { masters: 3, workers: 0, template: { labels: { control_plane_availability_zones: 'az-2,az-3' } } });
  await create(r, 'api_monitor');
  r.fresh();
  await r.run(ensureControlPlaneInit);
  r.fresh();
  await r.run(ensureControlPlaneInit);
  const said = r.recorded.events.filter((e) => e.reason === 'ZoneQuorumAtRisk');
  assert.equal(said.length, 1);
  assert.equal(said[0]!.severity, 'warning');
  assert.match(said[0]!.message, /losing az-2 \(2 of them\) loses etcd's quorum of 2/);
});

test('the add-ons\' credential is the cluster\'s current one; a cluster without one fails on the add-ons', async () => {
  const r = await stepRun(cloud);
  const cred = cloudCredential(r.ctx);
  assert.equal(cred.applicationCredentialId, r.ctx.cluster.app_cred_id);
  assert.equal(cred.applicationCredentialSecret, cloud.factory.credentialSecret(r.ctx.cluster));
  assert.equal(cred.authUrl, cloud.config.keystone.authUrl);
  const none = await stepRun(cloud, { credential: false });
  assert.throws(() => cloudCredential(none.ctx), (e) => e instanceof StepFailure && e.reason === 'NoCredential' && e.condition === 'addons');
});
