// What the cluster's CSI drivers made holds user data (src/steps/csi-storage.ts): a delete step made by
// purgeCsiStorage keeps it and lists it in an event unless the cluster asked for its deletion; then it deletes
// what the service deletes now and waits until none is left. A cloud without the service, a cluster without a
// credential, or nothing found: nothing to do; a spec that no longer parses keeps them.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ClusterSpec } from '../../src/cluster-spec/types.js';
import { OpenStackError } from '../../src/openstack/errors.js';
import { purgeCsiStorage } from '../../src/steps/csi-storage.js';
import { Wait } from '../../src/steps/errors.js';
import { startStepCloud, stepRun, type StepCloud } from '../support/run-context.js';

let cloud: StepCloud;
before(async () => {
  cloud = await startStepCloud();
});
after(async () => {
  await cloud.close();
});

interface Item {
  id: string;
  status: string;
}

/** A stand-in service holding `items`; deleting removes one; asking for deletion says `asked`. */
function storage(items: Item[], asked: (spec: ClusterSpec) => boolean, opts: { missing?: boolean } = {}) {
  const deleted: string[] = [];
  const step = purgeCsiStorage<Item[], Item>({
    name: 'things', reason: 'ThingsKept', what: 'thing(s)',
    client: async () => {
      if (opts.missing) throw new OpenStackError('things', 0, undefined, undefined, 'no_endpoint', 'none');
      return items;
    },
    list: async (all) => [...all],
    deleteAsked: asked,
    deletable: (x) => x.status === 'available',
    delete: async (all, id) => {
      deleted.push(id);
      all.splice(all.findIndex((x) => x.id === id), 1);
    },
  });
  return { step, deleted };
}

test('kept by default: an event lists them, nothing deleted', async () => {
  const r = await stepRun(cloud);
  const { step, deleted } = storage([{ id: 'v1', status: 'available' }, { id: 'v2', status: 'in-use' }], () => false);
  await r.run(step);
  assert.deepEqual(deleted, []);
  assert.deepEqual(r.recorded.events, [{ type: 'things', reason: 'ThingsKept', message: 'Kept 2 thing(s) made by the cluster\'s CSI: v1, v2.', severity: 'warning' }]);
  assert.deepEqual(r.recorded.logs.find((l) => l.msg === 'things kept')?.extra, { things: ['v1', 'v2'] });
});

test('asked for: the deletable ones deleted and the step waits while any is left; then it is done', async () => {
  const r = await stepRun(cloud);
  const items = [{ id: 'v1', status: 'available' }, { id: 'v2', status: 'in-use' }];
  const { step, deleted } = storage(items, () => true);
  await assert.rejects(r.once(step), (e) => e instanceof Wait && e.why === '2 thing(s) being deleted');
  assert.deepEqual(deleted, ['v1']);
  items[0]!.status = 'available';
  await assert.rejects(r.once(step), (e) => e instanceof Wait && e.why === '1 thing(s) being deleted');
  await r.once(step);
  assert.deepEqual(deleted, ['v1', 'v2']);
  assert.deepEqual(r.recorded.events, []);
});

test('nothing to do without the service, without a credential, or with nothing found; a spec that no longer parses keeps them', async () => {
  const r = await stepRun(cloud);
  const missing = storage([{ id: 'v1', status: 'available' }], () => true, { missing: true });
  await r.once(missing.step);
  const empty = storage([], () => true);
  await r.once(empty.step);
  const none = await stepRun(cloud, { credential: false });
  const untouched = storage([{ id: 'v1', status: 'available' }], () => true);
  await none.once(untouched.step);
  assert.deepEqual([...missing.deleted, ...empty.deleted, ...untouched.deleted], []);

  const broken = await stepRun(cloud);
  broken.db.templates.clear();
  broken.fresh();
  const kept = storage([{ id: 'v1', status: 'available' }], () => true);
  await broken.once(kept.step);
  assert.deepEqual(kept.deleted, []);
  assert.equal(broken.recorded.events[0]?.reason, 'ThingsKept');
});
