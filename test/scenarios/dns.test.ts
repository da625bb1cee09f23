// Issue 6 item 1: "a DNS record in Designate when the template names a zone" (label api_dns_zone):
// the create makes an A record for the API's floating IP, the apiserver certificate holds the name,
// the delete removes the record; a zone the project does not have fails the create with a reason;
// a bad zone name is a 400 naming the label at cluster create.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { apiHostLabel } from '../../src/cluster-spec/modules/octavia.js';
import { api, deleteCluster, leftovers, settled, withHarness, type Harness } from './lifecycle-support.js';

let h: Harness;
let zoneTemplate: string;
let missingZoneTemplate: string;
let ingressTemplate: string;

async function template(name: string, zone: string, labels: Record<string, string> = {}): Promise<string> {
  const r = await api(h, 'POST', '/v1/clustertemplates', {
    name, coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', flavor_id: 'm1.small', master_flavor_id: 'm1.medium',
    master_lb_enabled: true, floating_ip_enabled: true, network_driver: 'calico', labels: { kube_tag: 'v1.35.1', api_dns_zone: zone, ...labels },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.uuid as string;
}

withHarness(async (x) => {
  h = x;
  h.t.cloud!.sims.designate.state.createZone({ projectId: h.project, name: 'k8s.example.org.', email: 'dns@example.org' });
  zoneTemplate = await template('with-zone', 'K8S.example.org');
  missingZoneTemplate = await template('missing-zone', 'nowhere.example.org.');
  ingressTemplate = await template('zone-ingress', 'k8s.example.org.', { ingress_controller: 'octavia' });
});

const recordsets = () => [...h.t.cloud!.sims.designate.state.recordsets.values()].filter((r) => r.type === 'A');

test('a bad zone name is refused at cluster create with the label named, and nothing is written', async () => {
  const bad = await template('bad-zone', 'not a zone');
  const r = await api(h, 'POST', '/v1/clusters', { cluster_template_id: bad, name: 'badzone', master_count: 1, node_count: 1 });
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.match(r.body.errors[0].detail, /api_dns_zone/);
  assert.equal((await api(h, 'GET', '/v1/clusters')).body.clusters.filter((c: { name: string }) => c.name === 'badzone').length, 0);
});

test('the API gets an A record in the zone and the name in its certificate; the delete removes it', async () => {
  const r = await api(h, 'POST', '/v1/clusters', { cluster_template_id: zoneTemplate, name: 'Web_Prod', master_count: 1, node_count: 1 });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const uuid = r.body.uuid as string;
  const c = await settled(h, uuid, 'CREATE_COMPLETE');
  const ip = new URL(c.api_address).hostname;
  const name = `${apiHostLabel('Web_Prod', uuid)}.k8s.example.org.`;
  assert.match(name, /^web-prod-[0-9a-f]{8}\.k8s\.example\.org\.$/);
  const mine = recordsets().filter((rs) => rs.name === name);
  assert.equal(mine.length, 1, `one record named ${name}`);
  assert.deepEqual(mine[0]!.records, [ip]);
  assert.ok(mine[0]!.description?.includes(uuid), 'marked as the cluster\'s');
  assert.equal(recordsets().filter((rs) => rs.name === `*.${name}`).length, 0, 'no wildcard without the ingress');

  // The apiserver's serving certificate holds the DNS name beside the address.
  const target = h.t.cloud!.sims.kube.resolve(ip, 6443)!;
  const cert = await new Promise<X509Certificate>((resolve, reject) => {
    const s = connect({ host: target.host, port: target.port, rejectUnauthorized: false }, () => {
      resolve(new X509Certificate(s.getPeerX509Certificate()!.raw));
      s.end();
    });
    s.on('error', reject);
  });
  assert.ok(cert.checkHost(name.replace(/\.$/, '')), `the certificate is valid for ${name}: ${cert.subjectAltName}`);
  assert.ok(cert.checkIP(ip));

  await deleteCluster(h, uuid);
  assert.equal(recordsets().filter((rs) => rs.name === name && rs.action !== 'DELETE').length, 0, 'the record is gone');
  assert.deepEqual(leftovers(h).map((x) => `${x.service}:${x.type}:${x.id}`).filter((x) => !x.startsWith('designate:zone')), []);
});

test('a zone the project does not have fails the create on the API condition, and the delete still cleans up', async () => {
  const r = await api(h, 'POST', '/v1/clusters', { cluster_template_id: missingZoneTemplate, name: 'nozone', master_count: 1, node_count: 1 });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const uuid = r.body.uuid as string;
  const c = await settled(h, uuid, 'CREATE_FAILED');
  assert.match(c.status_reason, /nowhere\.example\.org\. \(label api_dns_zone\) was not found/);
  await deleteCluster(h, uuid);
  assert.deepEqual(leftovers(h).map((x) => `${x.service}:${x.type}:${x.id}`).filter((x) => !x.startsWith('designate:zone')), []);
});

test('with ingress_controller=octavia: *.<API name> points at a floating IP kept for the ingress; both go with the cluster', async () => {
  const r = await api(h, 'POST', '/v1/clusters', { cluster_template_id: ingressTemplate, name: 'shop', master_count: 1, node_count: 1 });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const uuid = r.body.uuid as string;
  const c = await settled(h, uuid, 'CREATE_COMPLETE');
  const name = `*.${apiHostLabel('shop', uuid)}.k8s.example.org.`;
  const wild = recordsets().filter((rs) => rs.name === name && rs.action !== 'DELETE');
  assert.equal(wild.length, 1, `one record ${name}`);
  assert.ok(wild[0]!.description?.includes(uuid), "marked as the cluster's");
  const fips = [...h.t.cloud!.neutron.floatingIps.values()].filter((f) => f.description === `Magnum cluster ${uuid} ingress`);
  assert.equal(fips.length, 1, 'a floating IP kept for the ingress');
  assert.deepEqual(wild[0]!.records, [fips[0]!.floatingIpAddress]);
  assert.equal(fips[0]!.portId, null, 'until an Ingress takes it');
  assert.ok(fips[0]!.tags.includes(`magnum-cluster=${uuid}`));
  assert.ok(!c.api_address.includes(fips[0]!.floatingIpAddress), "not the API's");
  const events = (await api(h, 'GET', `/v1/clusters/${uuid}/events`)).body;
  const said = JSON.stringify(events);
  assert.match(said, /IngressDnsRecordCreated/);
  assert.ok(said.includes(`octavia.ingress.kubernetes.io/floatingip: \\"${fips[0]!.floatingIpAddress}\\"`), 'the event says how an Ingress takes the address');

  await deleteCluster(h, uuid);
  assert.equal(recordsets().filter((rs) => rs.name === name && rs.action !== 'DELETE').length, 0, 'the wildcard is gone');
  assert.equal(h.t.cloud!.neutron.floatingIps.has(fips[0]!.id), false, 'and its address');
  assert.deepEqual(leftovers(h).map((x) => `${x.service}:${x.type}:${x.id}`).filter((x) => !x.startsWith('designate:zone')), []);
});
