// Feature modules: a module declares its labels' schema and resolves them, already typed, into its part of the
// spec; featureOf reads an add-on's part back typed; LabelProblem carries the label a module refuses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseClusterSpec } from '../../src/cluster-spec/parse.js';
import { coreModules } from '../../src/cluster-spec/registry.js';
import { defineModule, featureOf, LabelProblem, type FeatureModule } from '../../src/cluster-spec/module.js';
import { bool, cidrList, label } from '../../src/cluster-spec/labels/types.js';
import { input } from '../support/spec-fixtures.js';

test('add-on modules plug in with their own label schema', () => {
  const addon = defineModule({
    key: 'metricsServer',
    kind: 'addon',
    labels: { metrics_server_enabled: label(bool, 'metrics-server') },
    resolve: (l) => ({ enabled: l.metrics_server_enabled ?? true }),
  });
  const mods = [...coreModules(), addon as unknown as FeatureModule];
  const { spec, warnings } = parseClusterSpec(input({ labels: { metrics_server_enabled: 'false' } }), mods);
  assert.deepEqual(featureOf(spec, addon), { enabled: false });
  assert.deepEqual(warnings, []);
  assert.throws(() => parseClusterSpec(input({ labels: { metrics_server_enabled: 'nah' } }), mods), /label metrics_server_enabled/);
});

test('a module resolves its labels already parsed to their types; absent labels are absent; featureOf is undefined for a module that did not run', () => {
  const got: unknown[] = [];
  const probe = defineModule({
    key: 'probe',
    kind: 'addon',
    labels: { probe_flag: label(bool, 'a flag'), probe_cidrs: label(cidrList, 'some CIDRs') },
    resolve(l) {
      got.push(l);
      return { flag: l.probe_flag, cidrs: (l.probe_cidrs ?? []).map((c) => c.text) };
    },
  });
  const { spec } = parseClusterSpec(input({ labels: { probe_flag: 'YES', probe_cidrs: '192.0.2.0/24, 198.51.100.0/24' } }), [...coreModules(), probe as FeatureModule]);
  assert.deepEqual(featureOf(spec, probe), { flag: true, cidrs: ['192.0.2.0/24', '198.51.100.0/24'] });
  assert.deepEqual(Object.keys(got[0] as object).sort(), ['probe_cidrs', 'probe_flag']);
  parseClusterSpec(input(), [...coreModules(), probe as FeatureModule]);
  assert.deepEqual(got[1], {}, 'no label given: nothing in the parsed labels');
  assert.equal(featureOf(parseClusterSpec(input()).spec, probe), undefined);
});

test('LabelProblem: the label, the reason as message and the optional value', () => {
  const p = new LabelProblem('kube_tag', 'Too old.', 'v1.20.0');
  assert.ok(p instanceof Error);
  assert.deepEqual([p.label, p.message, p.value], ['kube_tag', 'Too old.', 'v1.20.0']);
  assert.equal(new LabelProblem('x', 'y').value, undefined);
});
