// Issue 5 item 4 (ExternalDNS to Designate, label external_dns_zone): the add-on runs with the cluster's
// application credential and the cluster uuid as its TXT owner; what it publishes can be written to Designate
// with the credential it is given; the delete removes every record ExternalDNS owns for the cluster (current and
// older TXT formats) and nothing else; a zone the project does not have fails the create on the add-ons condition.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EXTERNAL_DNS_SECRET } from '../../src/features/external-dns/addon.js';
import { api, deleteCluster, leftovers, settled, withHarness, type Harness, type Json } from './lifecycle-support.js';

let h: Harness;
const ZONE = 'apps.example.org.';

async function template(name: string, labels: Record<string, string>): Promise<string> {
  const r = await api(h, 'POST', '/v1/clustertemplates', {
    name, coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', flavor_id: 'm1.small', master_flavor_id: 'm1.medium',
    master_lb_enabled: true, floating_ip_enabled: true, network_driver: 'calico', labels: { kube_tag: 'v1.35.1', ...labels },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.uuid as string;
}

withHarness(async (x) => {
  h = x;
  h.t.cloud!.sims.designate.state.createZone({ projectId: h.project, name: ZONE, email: 'dns@example.org' });
});

/** The cluster's object `resource/name` in kube-system, as its simulated apiserver holds it. */
function clusterObject(resource: string, name: string, group = ''): Json | undefined {
  for (const c of h.t.cloud!.sims.kube.clusters.values()) {
    const o = c.store.get({ group, resource, namespace: 'kube-system', name });
    if (o) return o as Json;
  }
  return undefined;
}

/** A Keystone token from the credential ExternalDNS is given (its Secret's environment). */
async function tokenFrom(env: Record<string, string>): Promise<string> {
  assert.match(env.OS_AUTH_URL!, /\/v3\/$/, 'the auth URL ends in /v3/ (ExternalDNS appends v2.0/ otherwise)');
  const res = await h.t.keystone.app.inject({
    method: 'POST',
    url: '/v3/auth/tokens',
    payload: { auth: { identity: { methods: ['application_credential'], application_credential: { id: env.OS_APPLICATION_CREDENTIAL_ID, secret: env.OS_APPLICATION_CREDENTIAL_SECRET } } } },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.headers['x-subject-token'] as string;
}

async function dns(token: string, method: 'GET' | 'POST', url: string, payload?: unknown): Promise<Json> {
  const res = await h.t.cloud!.sims.designate.app.inject({ method, url, headers: { 'x-auth-token': token }, ...(payload ? { payload: payload as object } : {}) });
  assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json();
}

const owner = (uuid: string, resource: string) => `"heritage=external-dns,external-dns/owner=${uuid},external-dns/resource=${resource}"`;
const live = () => [...h.t.cloud!.sims.designate.state.recordsets.values()].filter((r) => r.action !== 'DELETE' && r.type !== 'SOA' && r.type !== 'NS');
const names = () => live().map((r) => `${r.type} ${r.name}`).sort();

test('a bad external_dns_zone is a 400 naming the label, and nothing is written', async () => {
  const bad = await template('edns-bad', { external_dns_zone: 'not a zone' });
  const r = await api(h, 'POST', '/v1/clusters', { cluster_template_id: bad, name: 'ednsbad', master_count: 1, node_count: 1 });
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.match(r.body.errors[0].detail, /external_dns_zone/);
  assert.equal((await api(h, 'GET', '/v1/clusters')).body.clusters.filter((c: { name: string }) => c.name === 'ednsbad').length, 0);
});

test('ExternalDNS gets the zone, the owner id and a working credential; the delete removes what it owns and nothing else', async () => {
  const tpl = await template('edns', { external_dns_zone: 'Apps.Example.org' });
  const r = await api(h, 'POST', '/v1/clusters', { cluster_template_id: tpl, name: 'edns', master_count: 1, node_count: 1 });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const uuid = r.body.uuid as string;
  await settled(h, uuid, 'CREATE_COMPLETE');

  const deployment = clusterObject('deployments', 'external-dns', 'apps');
  assert.ok(deployment, 'the Deployment was applied');
  const args = deployment.spec.template.spec.containers[0].args as string[];
  for (const a of ['--provider=designate', '--domain-filter=apps.example.org', `--txt-owner-id=${uuid}`, '--registry=txt', '--policy=sync']) assert.ok(args.includes(a), `${a} in ${args.join(' ')}`);
  const secret = clusterObject('secrets', EXTERNAL_DNS_SECRET);
  assert.ok(secret, 'the credential Secret was applied');
  const env = Object.fromEntries(Object.entries(secret.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));

  // What ExternalDNS would publish for two Services, in both TXT formats, with the credential it was given.
  const token = await tokenFrom(env);
  const zone = (await dns(token, 'GET', `/v2/zones?name=${ZONE}`)).zones[0];
  assert.equal(zone.name, ZONE, 'the credential sees the zone');
  const add = (name: string, type: string, records: string[]) => dns(token, 'POST', `/v2/zones/${zone.id}/recordsets`, { name, type, records, ttl: 300 });
  await add(`web.${ZONE}`, 'A', ['203.0.113.10']);
  await add(`a-web.${ZONE}`, 'TXT', [owner(uuid, 'service/default/web')]);
  await add(`old.${ZONE}`, 'A', ['203.0.113.11']);
  await add(`old.${ZONE}`, 'TXT', [owner(uuid, 'service/default/old')]);
  await add(`alias.${ZONE}`, 'CNAME', [`web.${ZONE}`]);
  await add(`cname-alias.${ZONE}`, 'TXT', [owner(uuid, 'ingress/default/alias')]);
  // Not ours: another cluster's ExternalDNS, and a record someone made by hand.
  await add(`other.${ZONE}`, 'A', ['203.0.113.12']);
  await add(`a-other.${ZONE}`, 'TXT', [owner('11111111-2222-3333-4444-555555555555', 'service/default/other')]);
  await add(`manual.${ZONE}`, 'A', ['203.0.113.13']);
  // An A record beside an owned current-format TXT is only the named type's: the AAAA of web stays unless owned.
  await add(`web.${ZONE}`, 'AAAA', ['2001:db8::10']);

  await deleteCluster(h, uuid);
  assert.deepEqual(names(), [`A manual.${ZONE}`, `A other.${ZONE}`, `AAAA web.${ZONE}`, `TXT a-other.${ZONE}`]);
  assert.deepEqual(leftovers(h).map((x) => `${x.service}:${x.type}`).filter((x) => !x.startsWith('designate:')), []);
});

test('a zone the project does not have fails the create on the add-ons condition, naming the label; the delete still cleans up', async () => {
  const tpl = await template('edns-missing', { external_dns_zone: 'nowhere.example.org.' });
  const r = await api(h, 'POST', '/v1/clusters', { cluster_template_id: tpl, name: 'ednsmissing', master_count: 1, node_count: 1 });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const uuid = r.body.uuid as string;
  const c = await settled(h, uuid, 'CREATE_FAILED');
  assert.match(c.status_reason, /nowhere\.example\.org\. \(label external_dns_zone\) was not found/);
  assert.equal(clusterObject('deployments', 'external-dns', 'apps'), undefined, 'the add-on was not applied');
  await deleteCluster(h, uuid);
  assert.deepEqual(leftovers(h).map((x) => `${x.service}:${x.type}:${x.id}`).filter((x) => !x.startsWith('designate:')), []);
});
