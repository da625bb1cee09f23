// Issue 26 item 6: a node group's name as its Nodes' label value is one to one. Names that already are label
// values stay as they are; any other (too long, ending in '-', or an older group's name with characters the name
// rule now refuses) is bounded and gets a digest, so no two names label their nodes the same.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groupNodeLabels, labelValue, NODEGROUP_LABEL } from '../../src/cluster-spec/node-labels.js';

const VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;

test('a name that is a label value is kept', () => {
  for (const n of ['default-worker', 'default-master', 'gpu.pool_a', 'a', `a${'b'.repeat(62)}`]) assert.equal(labelValue(n), n);
});

test('a b, a;b, a-b and their kin never become the same label; every result is a label value', () => {
  const names = ['a b', 'a;b', 'a-b', 'a--b', 'a_b', 'a\u202eb', 'a\u200bb', '../a-b', 'a-b-', 'a-b.', `${'x'.repeat(63)}1`, `${'x'.repeat(63)}2`, 'np$(id)', '-', ' ', '日本'];
  const values = names.map(labelValue);
  assert.equal(new Set(values).size, names.length, values.join('\n'));
  for (const v of values) assert.match(v, VALUE);
  assert.equal(labelValue('a b'), `a-b-${labelValue('a b').slice(-10)}`, 'what is left of the name stays readable');
});

test('the Node labels of a group name it one to one', () => {
  assert.equal(groupNodeLabels({ name: 'a b', role: 'worker' }, null)[NODEGROUP_LABEL] === groupNodeLabels({ name: 'a-b', role: 'worker' }, null)[NODEGROUP_LABEL], false);
});
