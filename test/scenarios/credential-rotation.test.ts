// Issue 15 hole 3 (b, c): a credential rotation is an operation. A member who is not the creator
// rotates; the API answers 202 once the intent is written; the worker gives the new credential to
// every consumer in the cluster (the Secrets of cloud.conf, ExternalDNS and the ingress controller,
// whose readers' pods roll; the KMS plugin's cloud.conf on every control plane, rewritten by an agent,
// and the plugin restarted), waits until they run with it, and only then deletes the old credential;
// the cloud provider then works with the new one (a LoadBalancer Service made after the rotation), and
// the cluster's delete removes the rotator's credential.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ClusterEntity } from '../../src/db/entities/cluster.js';
import { EXTERNAL_DNS_SECRET } from '../../src/features/external-dns/addon.js';
import { INGRESS_CONFIG_SECRET } from '../../src/features/ingress/addon.js';
import { SECRETS_CHECKSUM } from '../../src/bootstrap/addons/secret-checksums.js';
import { KMS_CONF_CHECKSUM, KMS_CONFIG_PATH, KMS_SYNC_NAME, kmsMirrorPod } from '../../src/features/kms/render.js';
import type { SimCluster } from '../../cloudsim/kube/index.js';
import { passwordToken } from '../support/app.js';
import { clusterKube, closeClusterKubes } from './cluster-kube.js';
import { api, deleteCluster, leftovers, settled, until, withHarness, type Harness, type Json } from './lifecycle-support.js';

let h: Harness;
let second: { id: string; token: string };
const ZONE = 'apps.example.org.';

/** Called when Keystone is asked to delete an application credential (its id), before it does. */
let onCredentialDelete: ((id: string) => void) | undefined;

withHarness(async (x) => {
  h = x;
  h.t.cloud!.sims.designate.state.createZone({ projectId: h.project, name: ZONE, email: 'dns@example.org' });
  const ks = h.t.keystone.state;
  const id = ks.createUser('demo-second', 'second-secret', h.project);
  ks.assignRole(id, h.project, 'member');
  second = { id, token: await passwordToken(h.t.keystone, 'demo-second', 'second-secret', 'demo') };
}, {
  keystoneHooks: (app) => {
    app.addHook('onRequest', async (request) => {
      const m = /\/application_credentials\/([^/?]+)/.exec(request.url);
      if (request.method === 'DELETE' && m) onCredentialDelete?.(m[1]!);
    });
  },
});

const row = (uuid: string) => h.t.app.services.db.getRepository(ClusterEntity).findOneByOrFail({ uuid });
const credentials = () => h.t.keystone.state.appCreds;

function simCluster(uuid: string): SimCluster {
  const servers = [...h.t.cloud!.nova.servers.values()].filter((s) => s.tags.includes(`magnum-cluster=${uuid}`) && s.vmState !== 'deleted');
  for (const s of servers) {
    const c = h.t.cloud!.sims.kube.clusterOf(s.id);
    if (c) return c;
  }
  throw new Error(`no simulated cluster for ${uuid}`);
}

/** A Secret of kube-system as the cluster holds it, decoded. */
function secretOf(c: SimCluster, name: string): Record<string, string> {
  const s = c.store.get({ group: '', resource: 'secrets', namespace: 'kube-system', name });
  assert.ok(s, `Secret ${name}`);
  return Object.fromEntries(Object.entries(s.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
}

const podsOf = (c: SimCluster, app: Record<string, string>) =>
  c.store.list('', 'pods', 'kube-system').filter((p) => Object.entries(app).every(([k, v]) => p.metadata.labels?.[k] === v));

test('a member who is not the creator rotates: every consumer gets the new credential and restarts, then the old one is deleted', async () => {
  const tpl = await api(h, 'POST', '/v1/clustertemplates', {
    name: 'rotating', coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', flavor_id: 'm1.small', master_flavor_id: 'm1.medium',
    master_lb_enabled: true, floating_ip_enabled: true, network_driver: 'calico',
    labels: { kube_tag: 'v1.35.1', barbican_kms_enabled: 'true', external_dns_zone: ZONE, ingress_controller: 'octavia' },
  });
  assert.equal(tpl.status, 201, JSON.stringify(tpl.body));
  const made = await api(h, 'POST', '/v1/clusters', { cluster_template_id: tpl.body.uuid, name: 'rotating', master_count: 3, node_count: 1 });
  assert.equal(made.status, 202, JSON.stringify(made.body));
  const uuid = made.body.uuid as string;
  await settled(h, uuid, 'CREATE_COMPLETE');
  const before = await row(uuid);
  const old = before.app_cred_id!;
  const cluster = simCluster(uuid);
  const occmBefore = new Set(podsOf(cluster, { 'k8s-app': 'openstack-cloud-controller-manager' }).map((p) => p.metadata.uid));
  assert.equal(occmBefore.size, 3, 'OCCM runs on the three control planes');
  const controlPlanes = cluster.nodes().filter((n) => 'node-role.kubernetes.io/control-plane' in (n.metadata.labels ?? {})).map((n) => n.metadata.name);
  assert.equal(controlPlanes.length, 3);
  for (const n of controlPlanes) assert.match(cluster.nodeFiles(n)![KMS_CONFIG_PATH]!, new RegExp(`application-credential-id=${old}\\n`), `${n}'s KMS plugin reads the first credential`);

  // What the cluster runs at the moment the old credential is deleted.
  let atDelete: { occm: string[]; kms: string[] } | undefined;
  onCredentialDelete = (id) => {
    if (id !== old) return;
    const ds = cluster.store.get({ group: 'apps', resource: 'daemonsets', namespace: 'kube-system', name: 'openstack-cloud-controller-manager' })!;
    const want = (ds.spec as Json).template.metadata.annotations[SECRETS_CHECKSUM];
    atDelete = {
      occm: podsOf(cluster, { 'k8s-app': 'openstack-cloud-controller-manager' }).filter((p) => p.metadata.annotations?.[SECRETS_CHECKSUM] !== want || p.metadata.deletionTimestamp).map((p) => p.metadata.name),
      kms: controlPlanes.filter((n) => cluster.nodeFiles(n)![KMS_CONFIG_PATH]!.includes(old)),
    };
  };
  const rotated = await h.t.app.inject({ method: 'PATCH', url: `/v1/credentials/${uuid}`, headers: { 'x-auth-token': second.token, 'openstack-api-version': 'container-infra latest' } });
  assert.equal(rotated.statusCode, 202, rotated.body);
  assert.deepEqual(rotated.json(), { uuid });
  const accepted = await row(uuid);
  const fresh = accepted.app_cred_id!;
  assert.notEqual(fresh, old);
  assert.equal(accepted.app_cred_user_id, second.id, 'the row names the rotating member as the owner');
  assert.deepEqual(accepted.retired_app_creds, [{ id: old, user_id: before.user_id }], 'the old credential is kept until its consumers moved');
  assert.equal(credentials().get(fresh)?.userId, second.id);
  assert.ok(credentials().get(old), 'the old credential still exists while the cluster uses it');
  assert.equal((await api(h, 'GET', `/v1/clusters/${uuid}`)).body.status, 'UPDATE_IN_PROGRESS');
  const busy = await h.t.app.inject({ method: 'PATCH', url: `/v1/credentials/${uuid}`, headers: { 'x-auth-token': second.token, 'openstack-api-version': 'container-infra latest' } });
  assert.equal(busy.statusCode, 409, 'one rotation at a time');
  const made2 = credentials().listForUser(second.id).length;
  assert.equal(made2, 1, 'the refused rotation made no credential');

  await settled(h, uuid, 'UPDATE_COMPLETE');
  const after = await row(uuid);
  assert.deepEqual([after.app_cred_id, after.app_cred_user_id, after.retired_app_creds], [fresh, second.id, []]);
  assert.equal(credentials().get(old), undefined, 'Keystone no longer has the old credential');
  assert.deepEqual(atDelete, { occm: [], kms: [] }, 'when it was deleted, no OCCM pod of the old template and no KMS plugin reading it were left');
  assert.equal(credentials().get(fresh)?.userId, second.id);

  // Every Secret that held the credential holds the new one.
  const conf = secretOf(cluster, 'cloud-config')['cloud.conf']!;
  assert.match(conf, new RegExp(`application-credential-id=${fresh}\\n`), 'the cloud-config Secret names the new credential');
  assert.equal(secretOf(cluster, EXTERNAL_DNS_SECRET).OS_APPLICATION_CREDENTIAL_ID, fresh);
  assert.match(secretOf(cluster, INGRESS_CONFIG_SECRET)['config.yaml']!, new RegExp(`application-credential-id: ${fresh}`));
  for (const s of cluster.store.list('', 'secrets', 'kube-system')) {
    const values = Object.values((s.data ?? {}) as Record<string, string>).map((v) => Buffer.from(v, 'base64').toString('utf8'));
    assert.ok(!values.some((v) => v.includes(old)), `Secret ${s.metadata.name} no longer names the old credential`);
  }
  // Their readers were restarted: new pods, annotated with the new Secrets' checksum, Ready.
  const occm = podsOf(cluster, { 'k8s-app': 'openstack-cloud-controller-manager' });
  const ds = cluster.store.get({ group: 'apps', resource: 'daemonsets', namespace: 'kube-system', name: 'openstack-cloud-controller-manager' })!;
  const checksum = (ds.spec as Json).template.metadata.annotations[SECRETS_CHECKSUM];
  assert.equal(occm.length, 3);
  for (const p of occm) {
    assert.ok(!occmBefore.has(p.metadata.uid), `${p.metadata.name} is a new pod`);
    assert.equal(p.metadata.annotations?.[SECRETS_CHECKSUM], checksum);
    assert.ok((p.status as Json).conditions.some((c: Json) => c.type === 'Ready' && c.status === 'True'));
  }
  // Each control plane's KMS plugin reads the new credential from its disk and was restarted.
  for (const n of controlPlanes) {
    const file = cluster.nodeFiles(n)![KMS_CONFIG_PATH]!;
    assert.match(file, new RegExp(`application-credential-id=${fresh}\\n`), `${n}'s KMS cloud.conf names the new credential`);
    assert.doesNotMatch(file, new RegExp(old));
    const mirror = cluster.store.get({ group: '', resource: 'pods', namespace: 'kube-system', name: kmsMirrorPod(n) });
    assert.ok(mirror?.metadata.annotations?.[KMS_CONF_CHECKSUM], `${n}'s plugin runs from the new manifest`);
  }
  assert.equal(cluster.store.get({ group: 'apps', resource: 'daemonsets', namespace: 'kube-system', name: KMS_SYNC_NAME }), undefined, 'the agent is gone');
  assert.equal(cluster.store.get({ group: '', resource: 'secrets', namespace: 'kube-system', name: KMS_SYNC_NAME }), undefined, 'with its copy of the credential');

  // Events tell each phase, and the old credential went only once every consumer used the new one.
  const events = ((await api(h, 'GET', `/v1/clusters/${uuid}/events?limit=200`)).body.events as Json[]).map((e) => e.reason as string);
  const phases = ['CredentialRotationAccepted', 'CredentialPublished', 'CredentialInUse', 'CredentialDeleted', 'RotateCredentialSucceeded'];
  const at = phases.map((r) => events.indexOf(r));
  assert.ok(at.every((i) => i >= 0), `every phase is told: ${events.join(', ')}`);
  assert.deepEqual([...at].sort((a, b) => a - b), at, `in order: ${events.join(', ')}`);

  // The cloud provider works with the new credential: a LoadBalancer Service made now gets its address.
  const kube = await clusterKube(h, uuid);
  await kube.apply({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'after', namespace: 'default' }, spec: { type: 'LoadBalancer', selector: { app: 'x' }, ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }] } });
  await until('the Service made after the rotation has its load balancer', async () => {
    const s = (await kube.get('v1', 'Service', 'default', 'after')) as Json | undefined;
    return s?.status?.loadBalancer?.ingress?.[0]?.ip;
  });
  closeClusterKubes();

  await deleteCluster(h, uuid);
  assert.equal(credentials().get(fresh), undefined, 'the delete removes the rotating member\'s credential');
  assert.deepEqual(leftovers(h).filter((x) => x.type !== 'zone').map((x) => `${x.service}:${x.type}:${x.id}`), [], 'nothing left but the zone this test made');
});

test('the simulated cluster reads Secrets as pods do: a changed Secret counts for a reader only once its pod is replaced', async () => {
  const made = await api(h, 'POST', '/v1/clusters', { cluster_template_id: h.templates.v135, name: 'readers', master_count: 1, node_count: 1 });
  assert.equal(made.status, 202, JSON.stringify(made.body));
  const uuid = made.body.uuid as string;
  await settled(h, uuid, 'CREATE_COMPLETE');
  const cluster = simCluster(uuid);
  const kube = await clusterKube(h, uuid);
  const lb = (name: string) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec: { type: 'LoadBalancer', selector: { app: 'x' }, ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }] } });
  const address = async (name: string) => ((await kube.get('v1', 'Service', 'default', name)) as Json | undefined)?.status?.loadBalancer?.ingress?.[0]?.ip as string | undefined;
  // The Secret changed behind OCCM's back (a credential that does not exist), its DaemonSet not.
  const cloudConfig = secretOf(cluster, 'cloud-config');
  const broken = cloudConfig['cloud.conf']!.replace(/application-credential-id=\S+/, 'application-credential-id=0000000000000000000000000000dead');
  await kube.apply({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'cloud-config', namespace: 'kube-system' }, type: 'Opaque', data: { 'cloud.conf': Buffer.from(broken).toString('base64') } }, 'test');
  await kube.apply(lb('before-restart'));
  await until('OCCM, still with what its pod read, makes the load balancer', () => address('before-restart'));
  // Its pod replaced: the new one reads the changed Secret, and fails.
  const [pod] = podsOf(cluster, { 'k8s-app': 'openstack-cloud-controller-manager' });
  await kube.delete('v1', 'Pod', 'kube-system', pod!.metadata.name);
  await until('a new OCCM pod runs', async () => podsOf(cluster, { 'k8s-app': 'openstack-cloud-controller-manager' }).some((p) => p.metadata.uid !== pod!.metadata.uid && !p.metadata.deletionTimestamp));
  await kube.apply(lb('after-restart'));
  const failed = await until('OCCM fails with the credential it read now', async () =>
    cluster.store.list('', 'events', 'default').find((e) => (e as Json).involvedObject?.name === 'after-restart' && (e as Json).reason === 'SyncLoadBalancerFailed'),
  );
  assert.ok(failed);
  assert.equal(await address('after-restart'), undefined);
  closeClusterKubes();
  await deleteCluster(h, uuid);
});
