// Checks of a node group beyond its schema (src/clusters/nodegroup-rules.ts): node counts, the group states
// that allow a change, Kubernetes' syntax for node labels and taints, and the patched bounds in wsme's words.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkBounds, checkCounts, checkNodegroupUpdatable, checkNodeLabels, checkNodeTaints } from '../../src/clusters/nodegroup-rules.js';
import type { NodeTaint } from '../../src/db/entities/nodegroup.js';
import { ApiError } from '../../src/domain/errors.js';

const refused = (status: number, message: RegExp) => (e: unknown) => e instanceof ApiError && e.status === status && message.test(e.message);

describe('checkCounts', () => {
  const cases: [string, { node_count: number; min_node_count: number; max_node_count: number | null }, RegExp | undefined][] = [
    ['within bounds', { node_count: 2, min_node_count: 1, max_node_count: 3 }, undefined],
    ['no maximum', { node_count: 50, min_node_count: 0, max_node_count: null }, undefined],
    ['max below min', { node_count: 2, min_node_count: 3, max_node_count: 1 }, /^max_node_count for pool is invalid \(max_node_count 1 is below min_node_count 3\)\.$/],
    ['count above max', { node_count: 4, min_node_count: 0, max_node_count: 3 }, /^max_node_count for pool is invalid \(node_count 4 is above max_node_count 3\)\.$/],
    ['min above count', { node_count: 1, min_node_count: 2, max_node_count: null }, /^min_node_count for pool is invalid \(min_node_count 2 is above node_count 1\)\.$/],
  ];
  for (const [name, counts, error] of cases) {
    test(name, () => (error ? assert.throws(() => checkCounts('pool', counts), refused(409, error)) : checkCounts('pool', counts)));
  }
});

test('checkNodegroupUpdatable: a settled group, one updating or failed to update; not one failed to create', () => {
  for (const status of ['CREATE_COMPLETE', 'UPDATE_COMPLETE', 'UPDATE_IN_PROGRESS', 'UPDATE_FAILED', null]) checkNodegroupUpdatable({ name: 'pool', status });
  for (const status of ['CREATE_FAILED', 'CREATE_IN_PROGRESS', 'DELETE_IN_PROGRESS']) {
    assert.throws(() => checkNodegroupUpdatable({ name: 'pool', status }), refused(409, new RegExp(`^Node group pool is ${status}\\.`)));
  }
});

describe('node labels and taints (Kubernetes syntax)', () => {
  test('labels: qualified keys with a DNS prefix, values of 63 at most, the empty value allowed', () => {
    checkNodeLabels({ 'gpu': 'true', 'example.com/tier': 'front-end_1', 'a.b/c': '' });
    for (const [labels, why] of [
      [{ '-bad': 'x' }, /Label key '-bad' must have a name of 1 to 63/],
      [{ 'a/b/c': 'x' }, /Label key 'a\/b\/c' has more than one "\/"/],
      [{ 'UPPER.example/x': 'x' }, /has a prefix that is not a DNS subdomain/],
      [{ k: 'x'.repeat(64) }, /The value of label 'k' must be at most 63/],
      [{ k: 'bad value' }, /The value of label 'k' must be at most 63/],
      [{ ['n'.repeat(64)]: 'x' }, /must have a name of 1 to 63/],
    ] as const) {
      assert.throws(() => checkNodeLabels(labels as Record<string, string>), refused(400, why));
    }
  });

  test('labels the kubelet would refuse to register with are refused', () => {
    assert.throws(() => checkNodeLabels({ 'node-role.kubernetes.io/control-plane': '' }), refused(400, /^Invalid input for field\/attribute node_labels\./));
  });

  test('taints: keys and values as labels, one key and effect once', () => {
    const t = (key: string, effect = 'NoSchedule', value?: string): NodeTaint => ({ key, effect, ...(value === undefined ? {} : { value }) }) as NodeTaint;
    checkNodeTaints([t('dedicated', 'NoSchedule', 'gpu'), t('dedicated', 'NoExecute', 'gpu'), t('example.com/x')]);
    assert.throws(() => checkNodeTaints([t('dedicated'), t('dedicated')]), refused(400, /Taint 'dedicated' with effect NoSchedule is given twice\./));
    assert.throws(() => checkNodeTaints([t('bad key')]), refused(400, /Taint key 'bad key' must have a name/));
    assert.throws(() => checkNodeTaints([t('k', 'NoSchedule', 'bad value')]), refused(400, /The value of taint 'k' must be at most 63/));
    assert.throws(() => checkNodeTaints([t('node.kubernetes.io/not-ready')]), refused(400, /Taint key 'node\.kubernetes\.io\/not-ready' /));
  });
});

test('checkBounds: numeric strings read as numbers in place; null allowed; wsme’s words otherwise', () => {
  const b: Record<string, unknown> = { min_node_count: '2', max_node_count: null };
  checkBounds(b);
  assert.deepEqual(b, { min_node_count: 2, max_node_count: null });
  assert.throws(() => checkBounds({ min_node_count: -1, max_node_count: null }), refused(400, /^Invalid input for field\/attribute min_node_count\. Value: '-1'\. Value should be greater or equal to 0$/));
  assert.throws(() => checkBounds({ min_node_count: 0, max_node_count: 'many' }), refused(400, /^Invalid input for field\/attribute max_node_count\. Value: 'many'\. Wrong type/));
  assert.throws(() => checkBounds({ min_node_count: 0, max_node_count: 5001 }), refused(400, /Value should be lower or equal to 5000$/));
});
