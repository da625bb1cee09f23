// Magnum's generated names (src/domain/names.ts): "<greek letter>-<1..24>-<suffix>".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateName } from '../../src/domain/names.js';

const GREEK = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa', 'lambda', 'mu', 'nu', 'xi', 'omicron', 'pi', 'rho', 'sigma', 'tau', 'upsilon', 'phi', 'chi', 'psi', 'omega'];

test('a greek letter, a number from 1 to 24 and the suffix, over many draws', () => {
  const letters = new Set<string>();
  const numbers = new Set<number>();
  for (let i = 0; i < 2000; i++) {
    const m = /^([a-z]+)-(\d+)-template$/.exec(generateName('template'));
    assert.ok(m, 'shaped <letter>-<n>-<suffix>');
    assert.ok(GREEK.includes(m[1]!), m[1]);
    const n = Number(m[2]);
    assert.ok(n >= 1 && n <= 24, String(n));
    letters.add(m[1]!);
    numbers.add(n);
  }
  assert.equal(letters.size, GREEK.length, 'every letter is drawn');
  assert.equal(numbers.size, 24, 'every number is drawn');
});

test('the suffix is kept as given', () => {
  assert.match(generateName('cluster'), /-cluster$/);
  assert.match(generateName('model'), /-model$/);
});
