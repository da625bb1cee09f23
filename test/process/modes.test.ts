// The process modes (src/process/modes.ts): what each runs, the check of a mode's name (own keys only),
// and the usage text listing them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isMode, MODES, usage } from '../../src/process/modes.js';

test('the five modes; names of Object’s own members are no mode', () => {
  assert.deepEqual(Object.keys(MODES), ['api', 'worker', 'migrate', 'sim', 'all']);
  for (const m of Object.keys(MODES)) assert.equal(isMode(m), true, m);
  for (const m of [undefined, '', 'API', 'toString', 'constructor', '__proto__', 'hasOwnProperty']) assert.equal(isMode(m), false, String(m));
});

test('usage names every mode, aligned, and the exit codes', () => {
  const text = usage();
  assert.match(text, /^usage: node dist\/src\/main\.js <mode>/);
  for (const [m, what] of Object.entries(MODES)) assert.ok(text.includes(`  ${m.padEnd(7)}  ${what}`), m);
  assert.match(text, /exit code 2.*\n?.*exit code 1/s);
});
