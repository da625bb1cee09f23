// ExternalDNS's part of a cluster's create and delete (src/features/external-dns/steps.ts, label
// external_dns_zone), with an in-memory run context against the simulated Designate: the create checks the zone
// is the project's (a failure on the add-ons naming the label otherwise); the delete removes every record ExternalDNS
// owns for the cluster by its TXT registry (the current `a-`/`aaaa-`/`cname-` format and the older one) and the TXT
// records themselves, and nothing another owner's or nobody's.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import '../../../src/features/registry.js';
import { ensureExternalDnsZone, guarded, ownedBy, purgeExternalDnsRecords } from '../../../src/features/external-dns/steps.js';
import type { Recordset } from '../../../src/openstack/designate.js';
import { StepFailure } from '../../../src/steps/errors.js';
import { eventually, startStepCloud, stepRun, type StepCloud } from '../../support/run-context.js';

let cloud: StepCloud;
before(async () => {
  cloud = await startStepCloud();
});
after(async () => {
  await cloud.close();
});

const ZONE = 'apps.example.org.';
const OTHER = '9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d';
const txt = (owner: string) => `"heritage=external-dns,external-dns/owner=${owner},external-dns/resource=service/default/web"`;

test('ownership: ExternalDNS\'s heritage and this owner, quoted or not; another owner or a look-alike is not', () => {
  assert.equal(ownedBy(txt('c-1'), 'c-1'), true);
  assert.equal(ownedBy('heritage=external-dns,external-dns/owner=c-1', 'c-1'), true);
  assert.equal(ownedBy(txt('c-2'), 'c-1'), false);
  assert.equal(ownedBy('"external-dns/owner=c-1"', 'c-1'), false, 'no heritage');
  assert.equal(ownedBy('"heritage=external-dns,external-dns/owner=c-10"', 'c-1'), false);
});

test('what an owned TXT guards: its prefixed name\'s one type, or (older format) its own name\'s A, AAAA and CNAME', () => {
  const rs = (name: string, type: string) => ({ id: `${type}:${name}`, name, type }) as Recordset;
  const all = [rs('web.z.', 'A'), rs('web.z.', 'AAAA'), rs('web.z.', 'CNAME'), rs('web.z.', 'MX'), rs('api.z.', 'A')];
  assert.deepEqual(guarded(rs('a-web.z.', 'TXT'), all).map((x) => x.id), ['A:web.z.']);
  assert.deepEqual(guarded(rs('cname-web.z.', 'TXT'), all).map((x) => x.id), ['CNAME:web.z.']);
  assert.deepEqual(guarded(rs('web.z.', 'TXT'), all).map((x) => x.id), ['A:web.z.', 'AAAA:web.z.', 'CNAME:web.z.']);
  assert.deepEqual(guarded(rs('a-nothing.z.', 'TXT'), all), []);
});

test('the create checks the zone is the project\'s: none asked, nothing; a missing one fails on the add-ons naming the label', async () => {
  const off = await stepRun(cloud);
  await off.run(ensureExternalDnsZone);
  const missing = await stepRun(cloud, { template: { labels: { external_dns_zone: ZONE } } });
  await assert.rejects(missing.run(ensureExternalDnsZone), (e) => e instanceof StepFailure && e.reason === 'DnsZoneNotFound' && e.condition === 'addons' && /external_dns_zone/.test(e.message));
  const present = await stepRun(cloud, { template: { labels: { external_dns_zone: ZONE } } });
  cloud.sims.designate.state.createZone({ projectId: present.project, name: ZONE, email: 'dns@example.org' });
  await present.run(ensureExternalDnsZone);
  assert.deepEqual(ensureExternalDnsZone.before, ['addons']);
});

test('the delete removes what ExternalDNS owns for the cluster, in both TXT formats, and nothing else', async () => {
  const r = await stepRun(cloud, { template: { labels: { external_dns_zone: ZONE } } });
  const zone = cloud.sims.designate.state.createZone({ projectId: r.project, name: ZONE, email: 'dns@example.org' }).id;
  const d = await r.clients().designate();
  const make = (name: string, type: string, records: string[]) => d.createRecordset(zone, { name: `${name}.${ZONE}`, type, records });
  await make('web', 'A', ['192.0.2.1']);
  await make('a-web', 'TXT', [txt(r.uuid)]);
  await make('old', 'A', ['192.0.2.4']);
  await make('old', 'AAAA', ['2001:db8::4']);
  await make('old', 'TXT', [txt(r.uuid)]);
  const theirs = [await make('shop', 'A', ['192.0.2.2']), await make('a-shop', 'TXT', [txt(OTHER)]), await make('manual', 'A', ['192.0.2.3'])];
  r.begin('delete');
  await r.run(purgeExternalDnsRecords);
  // Designate deletes in the background.
  const own = (all: Recordset[]) => all.filter((x) => x.type !== 'SOA' && x.type !== 'NS');
  const left = own(await eventually(() => d.listRecordsets(zone), (all) => own(all).length === theirs.length)).map((x) => x.id).sort();
  assert.deepEqual(left, theirs.map((x) => x.id).sort());
  assert.deepEqual(r.recorded.logs.find((l) => l.msg === 'external-dns records removed')?.extra, { count: 5 });
  assert.deepEqual([purgeExternalDnsRecords.after, purgeExternalDnsRecords.before], [['node_volumes'], ['ports']]);
});
