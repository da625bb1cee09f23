// docs/labels.md is the table the code generates: regenerate it with `npm run labels` after a label change.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { labelTable } from '../../../src/cluster-spec/labels/table.js';
import { SECTION_7_LABELS } from '../../../src/cluster-spec/labels/magnum-labels.js';

test('docs/labels.md is current', () => {
  assert.equal(readFileSync(new URL('../../../docs/labels.md', import.meta.url), 'utf8'), labelTable(), 'run npm run labels');
});

test('every §7 label has a row saying supported or why not', () => {
  const table = labelTable();
  for (const name of SECTION_7_LABELS) {
    const line = table.split('\n').find((l) => l.startsWith(`| \`${name}\` |`));
    assert.ok(line, `${name} has a row`);
    assert.match(line, /\| (supported|not yet|not supported)/, `${name}: ${line}`);
    assert.doesNotMatch(line, /\| – \|$/, `${name} says what it does or why not`);
  }
});
