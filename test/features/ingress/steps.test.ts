// The wildcard record for the cluster's services (src/features/ingress/steps.ts: api_dns_zone with
// ingress_controller=octavia), with an in-memory run context against the simulated Neutron and Designate: a
// floating IP kept for the ingress (recorded as `ingress`, tagged, unassociated, found by its description after a
// crash) and `*.<API name>` A that address, said in an event; nothing without both labels; a wildcard another
// holds failing on the add-ons; the purge taking the cluster's wildcard by its name.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import '../../../src/features/registry.js';
import { settingsOf } from '../../../src/bootstrap/addons/framework.js';
import type { IngressSettings } from '../../../src/features/ingress/addon.js';
import { ensureIngressDnsRecord, INGRESS_FIP, purgeIngressDnsRecord } from '../../../src/features/ingress/steps.js';
import { clusterSpec } from '../../../src/steps/context.js';
import { recordId } from '../../../src/steps/designate.js';
import { StepFailure } from '../../../src/steps/errors.js';
import { Crash, crashAfterCreate, create, eventually, recordedOf, startStepCloud, stepRun, type StepCloud, type StepRun } from '../../support/run-context.js';

let cloud: StepCloud;
before(async () => {
  cloud = await startStepCloud();
});
after(async () => {
  await cloud.close();
});

const ZONE = 'ingress.example.org.';

async function zoned(labels: Record<string, string> = { api_dns_zone: ZONE, ingress_controller: 'octavia' }): Promise<{ r: StepRun; zoneId: string; name: string }> {
  const r = await stepRun(cloud, { template: { master_lb_enabled: true, floating_ip_enabled: false, labels } });
  const zoneId = cloud.sims.designate.state.createZone({ projectId: r.project, name: ZONE, email: 'dns@example.org' }).id;
  await create(r, 'ports');
  r.fresh();
  const want = settingsOf<IngressSettings>(await clusterSpec(r.ctx), 'ingress').wildcardDns;
  return { r, zoneId, name: want?.name ?? '' };
}

test('a floating IP kept for the ingress and *.<API name> A it; a floating IP never recorded found by its description; said once made', async () => {
  const { r, zoneId, name } = await zoned();
  assert.match(name, /^\*\./);
  const made = crashAfterCreate(r, 'floatingip');
  await assert.rejects(r.run(ensureIngressDnsRecord), Crash);
  r.hooks.afterCreate = undefined;
  r.fresh();
  await r.run(ensureIngressDnsRecord);
  assert.deepEqual(await recordedOf(r, 'floatingip'), [[INGRESS_FIP, made[0]]]);
  const n = await r.clients().neutron();
  const fip = await n.floatingIps.get(made[0]!);
  assert.equal(fip.port_id ?? null, null, 'kept unassociated for the Ingress to take');
  assert.equal(r.usage().floatingip, 1);
  const d = await r.clients().designate();
  const [rs] = (await d.listRecordsets(zoneId, { name, type: 'A' })).filter((x) => x.name === name);
  assert.deepEqual(rs?.records, [fip.floating_ip_address]);
  assert.ok((await recordedOf(r, 'recordset')).some(([n2, id]) => n2 === name && id === recordId(zoneId, rs!.id!)));
  const said = r.recorded.events.filter((e) => e.reason === 'IngressDnsRecordCreated');
  assert.equal(said.length, 1);
  assert.match(said[0]!.message, new RegExp(`octavia.ingress.kubernetes.io/floatingip: "${fip.floating_ip_address}"`));

  // Recorded and tagged now: a later run finds both.
  r.fresh();
  await r.run(ensureIngressDnsRecord);
  assert.equal(r.usage().floatingip, 1);
  assert.equal((await d.listRecordsets(zoneId, { type: 'A' })).length, 1);
  r.ledger.forget((x) => x.type === 'floatingip');
  r.fresh();
  await r.run(ensureIngressDnsRecord);
  assert.equal(r.usage().floatingip, 1, 'found by its description');
  assert.deepEqual(await recordedOf(r, 'floatingip'), [[INGRESS_FIP, made[0]]]);
});

test('without ingress_controller=octavia, or without the API\'s zone: nothing; a wildcard another holds fails on the add-ons', async () => {
  const plain = await zoned({ api_dns_zone: ZONE });
  assert.equal(plain.name, '');
  await plain.r.run(ensureIngressDnsRecord);
  assert.equal(plain.r.usage().floatingip, 0);
  const noZone = await stepRun(cloud, { template: { labels: { ingress_controller: 'octavia' } } });
  await noZone.run(ensureIngressDnsRecord);
  assert.deepEqual(noZone.ledger.rows, []);

  const { r, zoneId, name } = await zoned();
  await (await r.clients().designate()).createRecordset(zoneId, { name, type: 'A', records: ['192.0.2.1'], description: 'someone else' });
  await assert.rejects(r.run(ensureIngressDnsRecord), (e) => e instanceof StepFailure && e.reason === 'DnsRecordConflict' && e.condition === 'addons');
});

test('the purge deletes the cluster\'s wildcard by its name, recorded or not; another\'s record of the zone stays', async () => {
  const { r, zoneId } = await zoned();
  await r.run(ensureIngressDnsRecord);
  r.ledger.forget((x) => x.type === 'recordset');
  const d = await r.clients().designate();
  const other = await d.createRecordset(zoneId, { name: `www.${ZONE}`, type: 'A', records: ['192.0.2.7'], description: 'not ours' });
  r.begin('delete');
  await r.run(purgeIngressDnsRecord);
  // Designate deletes in the background.
  assert.deepEqual((await eventually(() => d.listRecordsets(zoneId, { type: 'A' }), (x) => x.length === 1)).map((x) => x.id), [other.id]);
  assert.deepEqual(purgeIngressDnsRecord.before, ['load_balancers']);
});
