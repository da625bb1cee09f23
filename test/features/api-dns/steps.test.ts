// The API's DNS name (src/features/api-dns/steps.ts, label api_dns_zone), with an in-memory run context against
// the simulated Designate: an A record for the endpoint's address in the project's zone, marked as the cluster's,
// recorded as <zone>/<recordset> and said in an event; found again rather than made twice; a name another holds, a
// zone the project lacks and a cluster without an address each failing on the API's condition; the purge taking
// the recorded record and the name a crashed create left, never another's.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
// The registry first, as every entry point loads it: a feature's steps import the spec's parser, whose module
// registry imports every feature (src/cluster-spec/registry.ts reads it lazily for that reason).
import '../../../src/features/registry.js';
import { ensureApiDnsRecord, purgeDnsRecords } from '../../../src/features/api-dns/steps.js';
import { clusterSpec } from '../../../src/steps/context.js';
import { recordId } from '../../../src/steps/designate.js';
import { StepFailure } from '../../../src/steps/errors.js';
import { create, eventually, recordedOf, startStepCloud, stepRun, type StepCloud, type StepRun } from '../../support/run-context.js';

let cloud: StepCloud;
before(async () => {
  cloud = await startStepCloud();
});
after(async () => {
  await cloud.close();
});

const ZONE = 'api.example.org.';

/** The ids `list` gives once it gives `n` of them (Designate deletes in the background). */
const settled = async (list: () => Promise<{ id?: string }[]>, n: number): Promise<string[]> =>
  (await eventually(list, (x) => x.length === n)).map((x) => x.id!);

async function withEndpoint(zone: boolean): Promise<{ r: StepRun; zoneId: string }> {
  const r = await stepRun(cloud, { template: { master_lb_enabled: true, floating_ip_enabled: true, labels: { api_dns_zone: ZONE } } });
  const zoneId = zone ? cloud.sims.designate.state.createZone({ projectId: r.project, name: ZONE, email: 'dns@example.org' }).id : '';
  await create(r, 'api_endpoint');
  r.fresh();
  return { r, zoneId };
}

test('an A record for the API\'s address in the zone, the cluster\'s, recorded and said; a second run finds it', async () => {
  const { r, zoneId } = await withEndpoint(true);
  await r.run(ensureApiDnsRecord);
  const want = (await clusterSpec(r.ctx)).apiServer.dnsRecord!;
  const d = await r.clients().designate();
  const [rs] = await d.listRecordsets(zoneId, { name: want.name, type: 'A' });
  assert.ok(rs?.id);
  assert.deepEqual(rs.records, [new URL(r.ctx.cluster.api_address!).hostname]);
  assert.equal(rs.ttl, 300);
  assert.match(rs.description ?? '', new RegExp(r.uuid));
  assert.deepEqual(await recordedOf(r, 'recordset'), [[want.name, recordId(zoneId, rs.id)]]);
  assert.equal(r.recorded.events.find((e) => e.reason === 'DnsRecordCreated')?.type, 'api_lb');
  const records = r.usage().zone_recordsets;
  r.ledger.forget(() => true);
  r.fresh();
  await r.run(ensureApiDnsRecord);
  assert.equal(r.usage().zone_recordsets, records, 'not made twice');
  assert.deepEqual((await recordedOf(r, 'recordset')).map(([, id]) => id), [recordId(zoneId, rs.id)], 'recorded again');
});

test('no label: nothing; a name another holds, a zone the project lacks, no API address: failures on the API\'s condition', async () => {
  const plain = await stepRun(cloud);
  await plain.run(ensureApiDnsRecord);
  assert.deepEqual(plain.ledger.rows, []);

  const taken = await withEndpoint(true);
  const want = (await clusterSpec(taken.r.ctx)).apiServer.dnsRecord!;
  await (await taken.r.clients().designate()).createRecordset(taken.zoneId, { name: want.name, type: 'A', records: ['192.0.2.1'], description: 'someone else' });
  await assert.rejects(taken.r.run(ensureApiDnsRecord), (e) => e instanceof StepFailure && e.reason === 'DnsRecordConflict' && e.condition === 'api_lb');

  const noZone = await withEndpoint(false);
  await assert.rejects(noZone.r.run(ensureApiDnsRecord), (e) => e instanceof StepFailure && e.reason === 'DnsZoneNotFound' && /api_dns_zone/.test(e.message));

  const early = await stepRun(cloud, { template: { labels: { api_dns_zone: ZONE } } });
  await assert.rejects(early.run(ensureApiDnsRecord), (e) => e instanceof StepFailure && e.reason === 'NotReady');
});

test('the purge deletes the recorded record, and the API\'s name a crashed create left when it carries the cluster\'s uuid; another\'s stays', async () => {
  const { r, zoneId } = await withEndpoint(true);
  await r.run(ensureApiDnsRecord);
  const d = await r.clients().designate();
  const other = await d.createRecordset(zoneId, { name: `other.${ZONE}`, type: 'A', records: ['192.0.2.9'], description: 'not ours' });
  r.begin('delete');
  await r.run(purgeDnsRecords);
  // Designate deletes in the background: gone once its zone is updated.
  assert.deepEqual(await settled(() => d.listRecordsets(zoneId, { type: 'A' }), 1), [other.id]);
  assert.deepEqual(await recordedOf(r, 'recordset'), []);

  // Made, never recorded: found by the API's name and the cluster's mark.
  const again = await withEndpoint(false);
  const z = cloud.sims.designate.state.createZone({ projectId: again.r.project, name: ZONE, email: 'dns@example.org' }).id;
  await again.r.run(ensureApiDnsRecord);
  again.r.ledger.forget(() => true);
  again.r.begin('delete');
  await again.r.run(purgeDnsRecords);
  const d2 = await again.r.clients().designate();
  assert.deepEqual(await settled(() => d2.listRecordsets(z, { type: 'A' }), 0), []);
});
