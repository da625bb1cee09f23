// What a cluster delete takes as made by the cluster's cloud provider: the descriptions
// cloud-provider-openstack gives its floating IPs (OCCM for Services, octavia-ingress-controller for
// Ingresses, --cluster-name = the cluster uuid), and nothing of another cluster or of the project's own; the API's
// and the nodes' floating IPs (made, recorded, tagged, found again, dropped) and the delete's purge (the cloud
// provider's, recorded by the load-balancer purge from their VIPs: test/workers/cluster/api-lb.test.ts).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { clusterTag } from '../../../src/steps/naming.js';
import { API_FIP, dropNodeFloatingIp, ensureFloatingIp, ensureNodeFloatingIp, occmFloatingIp, purgeFloatingIps } from '../../../workers/cluster/floating-ips.js';
import { Crash, crashAfterCreate, create, recordedOf, startStepCloud, stepRun, type StepCloud, type StepRun } from '../../support/run-context.js';

const mine = '3f0d9c1e-7a51-4a8e-9b55-2f6a9d1c0e42';
const other = '9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d';

test('floating IPs: those OCCM and the ingress controller made for the cluster, no one else\'s', () => {
  const cases: [string, boolean][] = [
    [`Floating IP for Kubernetes external service default/web from cluster ${mine}`, true],
    [`Floating IP for Kubernetes ingress shop in namespace prod from cluster ${mine}`, true],
    [`Floating IP for Kubernetes external service default/web from cluster ${other}`, false],
    ['Floating IP for my bastion', false],
  ];
  for (const [description, ours] of cases) assert.equal(occmFloatingIp(mine).test(description), ours, description);
});

// ---- the floating IPs a cluster makes, with an in-memory run context against the simulated Neutron ----

let cloud: StepCloud;
before(async () => {
  cloud = await startStepCloud();
});
after(async () => {
  await cloud.close();
});

async function ported(): Promise<{ r: StepRun; ports: [string, string][] }> {
  const r = await stepRun(cloud, { masters: 1, workers: 1, template: { master_lb_enabled: false, floating_ip_enabled: true } });
  await create(r, 'ports');
  r.fresh();
  return { r, ports: (await recordedOf(r, 'port')) as [string, string][] };
}

test('the API\'s floating IP: made on its port, recorded as kubeapi and tagged; found again; moved to a new port', async () => {
  const { r, ports } = await ported();
  const [[, first], [, second]] = ports as [[string, string], [string, string]];
  const fip = await ensureFloatingIp(r.ctx, first);
  assert.equal(fip.port_id, first);
  assert.deepEqual(await recordedOf(r, 'floatingip'), [[API_FIP, fip.id]]);
  const n = await r.clients().neutron();
  assert.deepEqual((await n.floatingIps.list({ tags: clusterTag(r.uuid) } as never)).map((f) => f.id), [fip.id], 'tagged');
  assert.equal((await ensureFloatingIp(r.ctx, first)).id, fip.id, 'found again');
  const moved = await ensureFloatingIp(r.ctx, second);
  assert.deepEqual([moved.id, moved.port_id], [fip.id, second], 'the recorded one follows the endpoint');
  assert.equal(r.usage().floatingip, 1);
});

test('the API\'s floating IP made but never recorded (the worker died in between) is found on its port and recorded, not made twice', async () => {
  const { r, ports } = await ported();
  const made = crashAfterCreate(r, 'floatingip');
  await assert.rejects(ensureFloatingIp(r.ctx, ports[0]![1]), Crash);
  r.hooks.afterCreate = undefined;
  const fip = await ensureFloatingIp(r.ctx, ports[0]![1]);
  assert.deepEqual([fip.id, fip.port_id], [made[0], ports[0]![1]]);
  assert.deepEqual(await recordedOf(r, 'floatingip'), [[API_FIP, fip.id]]);
  assert.equal(r.usage().floatingip, 1);
});

test('a node\'s floating IP whose create went through after the lookup (a lost answer retried on a busy Neutron) is adopted on Neutron\'s 409, not a failure', async () => {
  const { r, ports } = await ported();
  const [, [wName, wPort]] = ports as [[string, string], [string, string]];
  // Two ensures at once: both look the port up before either creates; Neutron refuses the second create (409).
  const [a, b] = await Promise.all([ensureNodeFloatingIp(r.ctx, wName, wPort), ensureNodeFloatingIp(r.ctx, wName, wPort)]);
  assert.equal(a.id, b.id);
  assert.equal(r.usage().floatingip, 1);
  assert.deepEqual((await recordedOf(r, 'floatingip')).filter(([name]) => name === wName), [[wName, a.id]]);
});

test('a node\'s floating IP is its own, named by the node; the one already on its port is adopted only when it says so; dropping it deletes and marks it', async () => {
  const { r, ports } = await ported();
  const [[cpName, cpPort], [wName, wPort]] = ports as [[string, string], [string, string]];
  // The API's address on the control plane's port (no load balancer): returned, not recorded as the node's.
  const api = await ensureFloatingIp(r.ctx, cpPort);
  assert.equal((await ensureNodeFloatingIp(r.ctx, cpName, cpPort)).id, api.id);
  assert.deepEqual((await recordedOf(r, 'floatingip')).map(([name]) => name), [API_FIP]);

  const own = await ensureNodeFloatingIp(r.ctx, wName, wPort);
  assert.match(own.description ?? '', new RegExp(` node ${wName}$`));
  assert.equal((await ensureNodeFloatingIp(r.ctx, wName, wPort)).id, own.id);
  // Its record lost (a crash, so the next run): found on the port by its description, recorded again.
  r.ledger.forget((x) => x.cloud_id === own.id);
  r.fresh();
  assert.equal((await ensureNodeFloatingIp(r.ctx, wName, wPort)).id, own.id);
  // Its tag lost (the tagging timed out, the step retried in a new run): tagged when found again, on its record
  // or its port.
  const n = await r.clients().neutron();
  await n.replaceTags('floatingips', own.id, []);
  r.fresh();
  await ensureNodeFloatingIp(r.ctx, wName, wPort);
  assert.deepEqual((await n.floatingIps.get(own.id)).tags, [clusterTag(r.uuid)]);
  r.ledger.forget((x) => x.cloud_id === own.id);
  await n.replaceTags('floatingips', own.id, []);
  r.fresh();
  await ensureNodeFloatingIp(r.ctx, wName, wPort);
  assert.deepEqual((await n.floatingIps.get(own.id)).tags, [clusterTag(r.uuid)]);
  assert.ok((await recordedOf(r, 'floatingip')).some(([name, id]) => name === wName && id === own.id));

  await dropNodeFloatingIp(r.ctx, wName);
  assert.equal(await (await r.clients().neutron()).floatingIps.find(own.id), undefined);
  assert.ok(!(await recordedOf(r, 'floatingip')).some(([name]) => name === wName));
  await dropNodeFloatingIp(r.ctx, wName);
});

test('the delete takes the recorded and the tagged, asking Neutron by tag (never the project\'s whole list); no one else\'s', async () => {
  const { r, ports } = await ported();
  const n = await r.clients().neutron();
  const external = (await n.listNetworks({ name: 'public' }))[0]!.id;
  await ensureFloatingIp(r.ctx, ports[0]![1]);
  await ensureNodeFloatingIp(r.ctx, ports[1]![0], ports[1]![1]);
  const tagged = await n.floatingIps.create({ floating_network_id: external, description: 'made by a create that died before recording it' });
  await n.addTag('floatingips', tagged.id, clusterTag(r.uuid));
  const theirs = await n.floatingIps.create({ floating_network_id: external, description: 'Floating IP for my bastion' });
  // An unfiltered list fails: the purge must not make one.
  const unfiltered = cloud.sims.faults.neutron.inject({ method: 'GET', path: /\/v2\.0\/floatingips(\?(?!.*(tags|port_id)=).*)?$/, status: 500, message: 'unfiltered list' });
  try {
    r.fresh();
    await r.run(purgeFloatingIps);
  } finally {
    unfiltered();
  }
  const left = (await n.floatingIps.list()).map((f) => f.id);
  assert.deepEqual(left, [theirs.id]);
  assert.deepEqual(await recordedOf(r, 'floatingip'), []);
});
