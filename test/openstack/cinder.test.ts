// The Cinder client against the simulator: a volume created (202, creating → available), found
// by name and metadata, deleted (deleting → 404); the quota's 413 is a capacity error, never
// retried; limits and quota usage where the simulator serves them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CinderClient } from '../../src/openstack/cinder.js';
import { isCapacityError, isNotFound } from '../../src/openstack/errors.js';
import type { CallRecord } from '../../src/openstack/http.js';
import { failure } from '../support/openstack.js';
import { waitFor } from '../support/http.js';
import { FAST_RETRY, startCloud, type Cloud } from './cloud.js';

let cloud: Cloud;
let cinder: CinderClient;
const calls: CallRecord[] = [];
before(async () => {
  cloud = await startCloud();
  cinder = new CinderClient(await cloud.session('demo', 'block-storage', { calls, retry: FAST_RETRY }));
});
after(() => cloud.close());

/** Whether the simulator serves routes with this path segment yet (limits and quota sets came later). */

describe('cinder', () => {
  test('volume: created, available, found by name and metadata, deleted', async () => {
    const vol = await cinder.createVolume({ size: 1, name: 'etcd-0', metadata: { cluster: 'c1', role: 'etcd' } });
    assert.deepEqual([vol.status, vol.size, vol.name, vol.bootable], ['creating', 1, 'etcd-0', 'false']);
    const ready = await waitFor(() => cinder.getVolume(vol.id), (v) => v.status !== 'creating');
    assert.equal(ready.status, 'available');
    assert.deepEqual((await cinder.listVolumes({ name: 'etcd-0' })).map((v) => v.id), [vol.id]);
    assert.deepEqual((await cinder.listVolumes({ metadata: { cluster: 'c1' } })).map((v) => v.id), [vol.id]);
    assert.deepEqual(await cinder.listVolumes({ metadata: { cluster: 'c2' } }), []);

    assert.equal(await cinder.deleteVolume(vol.id), true);
    await waitFor(
      () => cinder.getVolume(vol.id).then((v) => v.status, (e: unknown) => (isNotFound(e) ? 'gone' : Promise.reject(e))),
      (s) => s === 'gone',
    );
    assert.equal(await cinder.deleteVolume(vol.id), false);
  });

  test('lists follow volumes_links to the end', async () => {
    const made = [];
    for (const n of [1, 2, 3]) made.push(await cinder.createVolume({ size: 1, name: `paged-${n}`, metadata: { purpose: 'paging' } }));
    calls.length = 0;
    const all = await cinder.listVolumes({ metadata: { purpose: 'paging' }, limit: 2 });
    assert.deepEqual(all.map((v) => v.name).sort(), ['paged-1', 'paged-2', 'paged-3']);
    assert.ok(calls.length >= 2);
    for (const v of made) await waitFor(() => cinder.getVolume(v.id), (x) => x.status === 'available');
    for (const v of made) await cinder.deleteVolume(v.id);
  });

  test('over quota is a 413 overLimit: a capacity error, not retried', async () => {
    cloud.sims.cinder.state.setQuota(cloud.projectId('demo'), { gigabytes: 5 });
    try {
      calls.length = 0;
      const e = await failure(() => cinder.createVolume({ size: 50, name: 'too-big' }));
      assert.deepEqual([e.status, e.kind, e.fault.type], [413, 'over_limit', 'overLimit']);
      assert.equal(isCapacityError(e), true);
      assert.equal(calls.length, 1);
    } finally {
      cloud.sims.cinder.state.quotas.delete(cloud.projectId('demo'));
    }
  });

  test('absolute limits', async () => {
    const limits = await cinder.limits();
    assert.equal(typeof limits.maxTotalVolumes, 'number');
    assert.equal(typeof limits.totalGigabytesUsed, 'number');
  });

  test('quota usage', async () => {
    const quota = await cinder.quotaUsage(cloud.projectId('demo'));
    assert.equal(typeof quota.volumes.limit, 'number');
    assert.equal(typeof quota.gigabytes.in_use, 'number');
  });
});
