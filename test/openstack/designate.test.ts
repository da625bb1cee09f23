// The Designate client against the simulator: the project's zone found by name (with or without
// its trailing dot), a cluster's A record created (202, PENDING → ACTIVE), listed by name and
// type, deleted (202, then gone); a missing zone in Designate's envelope.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DesignateClient, fqdn } from '../../src/openstack/designate.js';
import { failure } from '../support/openstack.js';
import { waitFor } from '../support/http.js';
import { FAST_RETRY, startCloud, type Cloud } from './cloud.js';

let cloud: Cloud;
let dns: DesignateClient;
let zoneId: string;
before(async () => {
  cloud = await startCloud();
  dns = new DesignateClient(await cloud.session('demo', 'dns', { retry: FAST_RETRY }));
  zoneId = cloud.sims.designate.state.createZone({ projectId: cloud.projectId('demo'), name: 'clusters.example.org.', email: 'dns@example.org' }).id;
  cloud.sims.designate.state.createZone({ projectId: cloud.projectId('other'), name: 'other.example.org.', email: 'dns@example.org' });
});
after(() => cloud.close());

describe('designate', () => {
  test('fqdn adds the trailing dot once', () => {
    assert.equal(fqdn('a.example.org'), 'a.example.org.');
    assert.equal(fqdn('a.example.org.'), 'a.example.org.');
  });

  test("zones by name, with or without the dot; another project's zone is not listed", async () => {
    assert.deepEqual((await dns.listZones({ name: 'clusters.example.org' })).map((z) => z.id), [zoneId]);
    const [zone] = await dns.listZones({ name: 'clusters.example.org.' });
    assert.deepEqual([zone?.name, zone?.type], ['clusters.example.org.', 'PRIMARY']);
    assert.deepEqual(await dns.listZones({ name: 'other.example.org' }), []);
    assert.deepEqual((await dns.listZones()).map((z) => z.id), [zoneId]);
  });

  test('a recordset: created PENDING, ACTIVE later, found by name and type, deleted', async () => {
    const rs = await dns.createRecordset(zoneId, { name: 'api.c3.clusters.example.org', type: 'A', records: ['127.24.4.10'], ttl: 300, description: 'cluster c3' });
    assert.deepEqual([rs.name, rs.type, rs.records, rs.status, rs.action], ['api.c3.clusters.example.org.', 'A', ['127.24.4.10'], 'PENDING', 'CREATE']);
    await waitFor(() => dns.listRecordsets(zoneId, { name: 'api.c3.clusters.example.org', type: 'A' }), (l) => l[0]?.status === 'ACTIVE');
    assert.deepEqual((await dns.listRecordsets(zoneId, { type: 'A' })).map((r) => r.id), [rs.id]);
    const dup = await failure(() => dns.createRecordset(zoneId, { name: 'api.c3.clusters.example.org.', type: 'A', records: ['127.24.4.11'] }));
    assert.equal(dup.status, 409);

    assert.equal(await dns.deleteRecordset(zoneId, rs.id), true);
    await waitFor(() => dns.listRecordsets(zoneId, { name: 'api.c3.clusters.example.org' }), (l) => l.length === 0);
    assert.equal(await dns.deleteRecordset(zoneId, rs.id), false);
  });

  test('an unknown zone is a 404 in Designate\'s envelope', async () => {
    const e = await failure(() => dns.listRecordsets('00000000-0000-4000-8000-000000000000'));
    assert.deepEqual([e.status, e.fault.type], [404, 'zone_not_found']);
  });
});
