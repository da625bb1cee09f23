// How an operation's steps are assembled from the core's and the features' (workers/cluster/graph.ts): a
// feature's step takes its place by what it comes after and before, every step after what it needs, the core's
// order kept where nothing says otherwise; a step naming a missing one, and steps waiting on each other, refused.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Step } from '../../../src/steps/step.js';
import { assemble } from '../../../workers/cluster/graph.js';

const step = (name: string, deps: { after?: string[]; before?: string[] } = {}): Step => ({ name, ...deps, run: async () => undefined });
const names = (steps: Step[]) => steps.map((s) => s.name);
const afterOf = (steps: Step[], name: string) => steps.find((s) => s.name === name)?.after;

test('without extras the core is kept as given, its steps untouched', () => {
  const core = [step('a'), step('b', { after: ['a'] }), step('c')];
  const out = assemble(core, []);
  assert.deepEqual(names(out), ['a', 'b', 'c']);
  assert.equal(out[0], core[0], 'the same objects');
});

test('a feature\'s step goes after what it needs and before what needs it; `before` becomes the later step\'s `after`', () => {
  const core = [step('network'), step('servers', { after: ['network'] }), step('ready', { after: ['servers'] })];
  const key = step('key', { before: ['servers'] });
  const dns = step('dns', { after: ['network'] });
  const out = assemble(core, [key, dns]);
  assert.deepEqual(names(out), ['network', 'key', 'servers', 'ready', 'dns']);
  assert.deepEqual(afterOf(out, 'servers'), ['network', 'key'], 'the runner waits for the key before the servers');
  assert.deepEqual(afterOf(out, 'dns'), ['network']);
  assert.equal(core[1]!.after!.length, 1, 'the core\'s step object is not changed');
});

test('each place goes to the first step, core then extras, whose needs are met: a core step waiting on an extra goes after it', () => {
  const out = assemble([step('a'), step('b'), step('c')], [step('x'), step('y', { before: ['a'] })]);
  assert.deepEqual(names(out), ['b', 'c', 'x', 'y', 'a']);
  assert.deepEqual(afterOf(out, 'a'), ['y']);
});

test('sequential: each core step after the one before it; a feature\'s purge placed with after and before, none of them given `after`', () => {
  const core = [step('load_balancers'), step('servers'), step('ports'), step('credential')];
  const out = assemble(core, [step('dns', { before: ['load_balancers'] }), step('key', { after: ['servers'], before: ['ports'] }), step('volumes', { before: ['credential'] })], { sequential: true });
  assert.deepEqual(names(out), ['dns', 'load_balancers', 'servers', 'key', 'ports', 'volumes', 'credential']);
  assert.equal(afterOf(out, 'ports'), undefined, 'a sequential operation runs in order: no after added');
});

test('a step coming before one the operation lacks is refused; so are steps that wait on each other', () => {
  assert.throws(() => assemble([step('a')], [step('x', { before: ['nope'] })]), /step x comes before nope, which the operation does not have/);
  assert.throws(() => assemble([step('a', { after: ['b'] }), step('b', { after: ['a'] })], []), /the steps a, b wait on each other/);
});
