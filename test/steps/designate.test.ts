// What a step needs of Designate (src/steps/designate.ts), against the simulated Designate: the zone a label names
// (a failure naming the label when the project has none), the service (a failure when the cloud lacks it), the A
// records of a name as ledger ids (<zone>/<recordset>, the exact name only: `*` is a glob to Designate), deleting
// one by its ledger id.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { deleteRecord, designate, recordId, recordsNamed, zoneOf, type ZoneUse } from '../../src/steps/designate.js';
import { StepFailure } from '../../src/steps/errors.js';
import { eventually, startStepCloud, stepRun, withoutService, type StepCloud } from '../support/run-context.js';

let cloud: StepCloud;
before(async () => {
  cloud = await startStepCloud();
});
after(async () => {
  await cloud.close();
});

const USE: ZoneUse = { label: 'api_dns_zone', condition: 'api_lb' };
const ZONE = 'z.example.org.';

test('the zone by its name; none in the project: a failure naming it and the label; the service missing: a failure too', async () => {
  const r = await stepRun(cloud);
  const d = await designate(r.ctx, USE);
  await assert.rejects(zoneOf(d, ZONE, USE), (e) => e instanceof StepFailure && e.reason === 'DnsZoneNotFound' && e.condition === 'api_lb' && e.message === `DNS zone ${ZONE} (label api_dns_zone) was not found in the cluster's project.`);
  const zone = cloud.sims.designate.state.createZone({ projectId: r.project, name: ZONE, email: 'dns@example.org' });
  assert.equal(await zoneOf(d, ZONE, USE), zone.id);
  await withoutService(cloud, 'dns', async () => {
    const none = await stepRun(cloud);
    await assert.rejects(designate(none.ctx, USE), (e) => e instanceof StepFailure && e.reason === 'DnsUnavailable' && /api_dns_zone/.test(e.message));
  });
});

test('the A records of exactly a name, as ledger ids; none when the zone is not the project\'s; deleted by ledger id, once', async () => {
  const r = await stepRun(cloud);
  const zone = cloud.sims.designate.state.createZone({ projectId: r.project, name: ZONE, email: 'dns@example.org' }).id;
  const d = await r.clients().designate();
  const wild = await d.createRecordset(zone, { name: `*.api.${ZONE}`, type: 'A', records: ['192.0.2.1'], description: 'mark' });
  await d.createRecordset(zone, { name: `www.api.${ZONE}`, type: 'A', records: ['192.0.2.2'] });
  await d.createRecordset(zone, { name: `*.api.${ZONE}`, type: 'TXT', records: ['"x"'] });
  const found = await recordsNamed(d, { zone: ZONE, name: `*.api.${ZONE}` });
  assert.deepEqual(found, [{ id: recordId(zone, wild.id!), description: 'mark' }]);
  assert.deepEqual(await recordsNamed(d, { zone: 'elsewhere.org.', name: `*.api.${ZONE}` }), []);
  assert.equal(recordId('z1', 'r1'), 'z1/r1');
  assert.equal(await deleteRecord(d, found[0]!.id), true);
  // Designate deletes in the background: gone once the zone is updated, then a delete finds nothing.
  assert.deepEqual(await eventually(() => recordsNamed(d, { zone: ZONE, name: `*.api.${ZONE}` }), (x) => x.length === 0), []);
  assert.equal(await deleteRecord(d, found[0]!.id), false, 'gone already');
});
