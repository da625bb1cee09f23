// Every Magnum k8s label of magnum-api spec §7 is either implemented by a module or catalogued
// (unsupported, with the reason); the table in the report is generated from the same data.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { catalogWarning, LABEL_CATALOG } from '../../../src/cluster-spec/labels/catalog.js';
import { SECTION_7_LABELS } from '../../../src/cluster-spec/labels/magnum-labels.js';
import { addonModules, coreModules, labelOwners } from '../../../src/cluster-spec/registry.js';
import { parseClusterSpec } from '../../../src/cluster-spec/parse.js';
import { input } from '../../support/spec-fixtures.js';


test('every §7 label is implemented by exactly one module or catalogued, never both', () => {
  const owners = labelOwners([...coreModules(), ...addonModules()]);
  for (const name of SECTION_7_LABELS) {
    const implemented = owners.has(name);
    const catalogued = name in LABEL_CATALOG;
    assert.ok(implemented !== catalogued, `${name}: implemented=${implemented} catalogued=${catalogued}`);
  }
  for (const name of Object.keys(LABEL_CATALOG)) {
    assert.ok(SECTION_7_LABELS.includes(name), `${name} is catalogued but is not a §7 label`);
  }
  // Labels this service adds say so first thing in their description (the label table shows it).
  for (const [name, m] of owners) {
    if (SECTION_7_LABELS.includes(name)) continue;
    assert.match(m.labels[name]!.doc, /^Not a Magnum label\./, `${name} is not a §7 label and its description does not say so`);
  }
});

test('catalogued labels are accepted with one warning each and change nothing', () => {
  const base = parseClusterSpec(input()).spec;
  const labels = Object.fromEntries(Object.keys(LABEL_CATALOG).map((k) => [k, 'whatever']));
  const { spec, warnings } = parseClusterSpec(input({ labels }));
  assert.equal(warnings.length, Object.keys(LABEL_CATALOG).length);
  assert.deepEqual({ ...spec, labels: base.labels }, base);
});

test('every catalogued label says why it is not supported, in the warning it gives', () => {
  for (const [name, entry] of Object.entries(LABEL_CATALOG)) {
    assert.equal(entry.status, 'unsupported');
    assert.match(entry.reason, /^[A-Za-z].*\.$/s, `${name}: a sentence`);
    assert.equal(catalogWarning(name, entry), `Label ${name} is not supported and is ignored: ${entry.reason}`);
  }
});
