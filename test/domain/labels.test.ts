// Label maps as the API stores and compares them (src/domain/labels.ts): Python's strings for JSON
// scalars, a cluster's labels from its template's, and Magnum's labels_overridden/added/skipped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inheritLabels, labelDiff, labelStrings } from '../../src/domain/labels.js';

test('values are stored as Python writes them: booleans True/False, numbers as digits, null None', () => {
  assert.deepEqual(labelStrings({ a: true, b: false, n: 5, f: 1.5, s: 'x', z: null }), { a: 'True', b: 'False', n: '5', f: '1.5', s: 'x', z: 'None' });
  assert.deepEqual(labelStrings({}), {});
});

const parent = { kube_tag: 'v1.35.2', a: '1' };
const cases: [string, Record<string, string> | null, boolean, Record<string, string>][] = [
  ['none given: the parent’s', null, false, parent],
  ['an empty map: the parent’s, even when merging', {}, true, parent],
  ['given, no merge: the given alone', { b: '2' }, false, { b: '2' }],
  ['given, merged: over the parent’s', { a: '9', b: '2' }, true, { kube_tag: 'v1.35.2', a: '9', b: '2' }],
];
for (const [name, given, merge, expected] of cases) {
  test(`inheritLabels: ${name}`, () => {
    const out = inheritLabels(parent, given, merge);
    assert.deepEqual(out, expected);
    assert.notEqual(out, parent, 'a copy, never the parent itself');
  });
}

test('labelDiff: overridden keeps the parent’s value, added the child’s, skipped the parent’s', () => {
  assert.deepEqual(labelDiff({ a: '1', b: '2', c: '3' }, { a: '1', b: 'x', d: '4' }), { overridden: { b: '2' }, added: { d: '4' }, skipped: { c: '3' } });
  assert.deepEqual(labelDiff(null, { d: '4' }), { overridden: {}, added: { d: '4' }, skipped: {} });
  assert.deepEqual(labelDiff({ c: '3' }, undefined), { overridden: {}, added: {}, skipped: { c: '3' } });
});

test('labelDiff reads own keys only: a child key named like an Object member is added, not matched', () => {
  const diff = labelDiff({}, { toString: 'x', constructor: 'y' });
  assert.deepEqual(diff.added, { toString: 'x', constructor: 'y' });
  assert.deepEqual(diff.overridden, {});
});
