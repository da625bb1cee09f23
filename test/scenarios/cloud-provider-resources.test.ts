// Issue 18, "the cloud provider's own resources": in the simulated clusters the cloud provider acts
// as its pods would (OCCM: a Service of type LoadBalancer gets an Octavia load balancer and a
// floating IP, named and described as cloud-provider-openstack does; Cinder CSI: a claim gets a
// volume pvc-<uid> with the driver's metadata and a bound PersistentVolume; Nodes carry their
// server's zone). A cluster delete then removes that cluster's load balancers and floating IPs,
// keeps or deletes its volumes as cinder_csi_delete_volumes says, and touches nothing of another
// cluster of the same project: the audit shows exactly what was there before that cluster existed,
// plus its kept volume.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeClient } from '../../src/kube/api-client.js';
import { clusterKube, closeClusterKubes } from './cluster-kube.js';
import { api, deleteCluster, leftovers, servers, settled, until, withHarness, type Harness } from './lifecycle-support.js';

let h: Harness;
withHarness((x) => (h = x), { roomy: true });
after(closeClusterKubes);

const octavia = () => h.t.cloud!.sims.octavia.state;
const neutron = () => h.t.cloud!.neutron;
const cinder = () => h.t.cloud!.sims.cinder.state;
const audit = () => new Set(leftovers(h).map((x) => `${x.service}:${x.type}:${x.id}`));

const service = (name: string) => ({
  apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' },
  spec: { type: 'LoadBalancer', selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }] },
});
const claim = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data', namespace: 'default' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1500Mi' } } } };
const web = {
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' },
  spec: {
    replicas: 1, selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.29.0', volumeMounts: [{ name: 'data', mountPath: '/data' }] }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }] } },
  },
};

type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A cluster with a LoadBalancer Service and a claimed volume, made through its API; what the cloud provider made for them. */
async function clusterWithWorkload(name: string, labels: Record<string, string>) {
  const r = await api(h, 'POST', '/v1/clusters', { cluster_template_id: h.templates.v135, name, master_count: 1, node_count: 2, labels: { kube_tag: 'v1.35.1', ...labels } });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const uuid = r.body.uuid as string;
  await settled(h, uuid, 'CREATE_COMPLETE');
  const kube = await clusterKube(h, uuid);
  for (const o of [service('web'), claim, web]) await kube.apply(o);
  const svc = await until(`${name}'s Service has its address`, async () => {
    const s = (await kube.get('v1', 'Service', 'default', 'web')) as Any | undefined;
    return s?.status?.loadBalancer?.ingress?.[0]?.ip && s;
  });
  const pvc = await until(`${name}'s claim is bound`, async () => {
    const c = (await kube.get('v1', 'PersistentVolumeClaim', 'default', 'data')) as Any | undefined;
    return c?.status?.phase === 'Bound' && c;
  });
  return { uuid, kube, svc, pvc };
}

/** What OCCM and the CSI driver made for one cluster, checked against cloud-provider-openstack's naming. */
async function checkCloudProvider(c: { uuid: string; kube: KubeClient; svc: Any; pvc: Any }) {
  const lbName = `kube_service_${c.uuid}_default_web`;
  const lbs = [...octavia().loadbalancers.values()].filter((lb) => lb.name === lbName);
  assert.equal(lbs.length, 1, `one load balancer ${lbName}`);
  const lb = lbs[0]!;
  assert.equal(lb.description, `Kubernetes external service default/web from cluster ${c.uuid}`);
  assert.deepEqual(lb.tags, [lbName]);
  assert.equal(c.svc.metadata.annotations['loadbalancer.openstack.org/load-balancer-id'], lb.id);
  assert.ok(c.svc.metadata.finalizers.includes('service.kubernetes.io/load-balancer-cleanup'));
  const [listener] = octavia().listenersOf(lb.id);
  assert.deepEqual([listener?.name, listener?.protocol, listener?.protocol_port], [`listener_0_${lbName}`, 'TCP', 80]);
  const nodePort = c.svc.spec.ports[0].nodePort as number;
  assert.ok(nodePort >= 30000 && nodePort <= 32767, 'the apiserver gave the port a node port');
  const workers = [...servers(h, c.uuid).entries()].filter(([, s]) => s.metadata.magnum_role === 'worker').map(([n]) => n).sort();
  const members = octavia().membersOf(listener!.default_pool_id!);
  assert.deepEqual(members.map((m) => m.name).sort(), workers, 'the workers are the members (control planes are excluded)');
  assert.ok(members.every((m) => m.protocol_port === nodePort));
  const fip = [...neutron().floatingIps.values()].find((f) => f.portId === lb.vip_port_id);
  assert.ok(fip, 'a floating IP on the VIP');
  assert.equal(fip.description, `Floating IP for Kubernetes external service default/web from cluster ${c.uuid}`);
  assert.equal(c.svc.status.loadBalancer.ingress[0].ip, fip.floatingIpAddress);

  const pvName = `pvc-${c.pvc.metadata.uid}`;
  assert.equal(c.pvc.spec.volumeName, pvName);
  assert.equal(c.pvc.spec.storageClassName, 'csi-cinder-sc-delete', 'the default class');
  const volumes = [...cinder().volumes.values()].filter((v) => v.name === pvName && v.status !== 'deleted');
  assert.equal(volumes.length, 1, `one volume ${pvName}`);
  const v = volumes[0]!;
  assert.equal(v.size, 2, '1500Mi rounds up to 2 GiB');
  assert.deepEqual(v.metadata, {
    'cinder.csi.openstack.org/cluster': c.uuid,
    'csi.storage.k8s.io/pvc/name': 'data',
    'csi.storage.k8s.io/pvc/namespace': 'default',
    'csi.storage.k8s.io/pv/name': pvName,
  });
  const pv = (await c.kube.get('v1', 'PersistentVolume', undefined, pvName)) as Any;
  assert.deepEqual([pv.spec.csi.driver, pv.spec.csi.volumeHandle, pv.spec.claimRef.uid, pv.status.phase], ['cinder.csi.openstack.org', v.id, c.pvc.metadata.uid, 'Bound']);

  // OCCM sets each Node's zone from its server's availability zone.
  for (const n of await c.kube.listNodes()) {
    const s = [...h.t.cloud!.nova.servers.values()].find((x) => x.name === n.metadata.name && x.vmState !== 'deleted')!;
    assert.equal(n.metadata.labels?.['topology.kubernetes.io/zone'], s.availabilityZone, n.metadata.name);
  }
  return { lb: lb.id, fip: fip.id, volume: v.id };
}

test('two clusters of a project with LoadBalancer Services and claims: deleting one removes its load balancers and floating IPs, keeps its volume as its label says, leaves the other alone', async () => {
  const b = await clusterWithWorkload('occm-b', { cinder_csi_delete_volumes: 'true' });
  const made = { b: await checkCloudProvider(b) };
  const onlyB = audit();

  const a = await clusterWithWorkload('occm-a', {});
  const madeA = await checkCloudProvider(a);

  // A Service deleted: its load balancer and floating IP go, then the Service (its finalizer held it).
  await a.kube.apply(service('tmp'));
  const tmp = await until('tmp has its address', async () => {
    const s = (await a.kube.get('v1', 'Service', 'default', 'tmp')) as Any | undefined;
    return s?.status?.loadBalancer?.ingress?.[0]?.ip && s;
  });
  const tmpLb = tmp.metadata.annotations['loadbalancer.openstack.org/load-balancer-id'] as string;
  const tmpFip = [...neutron().floatingIps.values()].find((f) => f.floatingIpAddress === tmp.status.loadBalancer.ingress[0].ip)!;
  assert.equal(await a.kube.delete('v1', 'Service', 'default', 'tmp'), true);
  await until('tmp is gone', async () => (await a.kube.get('v1', 'Service', 'default', 'tmp')) === undefined);
  assert.equal(octavia().loadbalancers.has(tmpLb), false, "tmp's load balancer is deleted");
  assert.equal(neutron().floatingIps.has(tmpFip.id), false, "tmp's floating IP is deleted");

  await deleteCluster(h, a.uuid);
  const afterA = audit();
  assert.deepEqual([...afterA].sort(), [...onlyB, `cinder:volume:${madeA.volume}`].sort(), 'what was there before the deleted cluster, plus its kept volume');
  assert.equal(cinder().volumes.get(madeA.volume)?.status, 'available');
  assert.ok(![...octavia().loadbalancers.values()].some((lb) => (lb.description ?? '').includes(a.uuid)));
  assert.ok(![...neutron().floatingIps.values()].some((f) => f.description.includes(a.uuid)));
  const stillB = (await b.kube.get('v1', 'Service', 'default', 'web')) as Any;
  assert.equal(stillB.status.loadBalancer.ingress[0].ip, b.svc.status.loadBalancer.ingress[0].ip);
  assert.equal(octavia().loadbalancers.get(made.b.lb)?.provisioning_status, 'ACTIVE', "the other cluster's load balancer is untouched");

  await deleteCluster(h, b.uuid);
  assert.deepEqual([...audit()], [`cinder:volume:${madeA.volume}`], "the label's volume went, the kept one stays");
});
