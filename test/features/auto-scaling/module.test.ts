// Core module `autoScaling` (Magnum's auto_scaling_enabled, min_node_count, max_node_count): the service scales
// the worker groups itself; no cluster-autoscaler runs in the cluster.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LABEL_CATALOG } from '../../../src/cluster-spec/labels/catalog.js';
import { parseClusterSpec } from '../../../src/cluster-spec/parse.js';
import { autoScalingModule } from '../../../src/features/auto-scaling/module.js';
import { input } from '../../support/spec-fixtures.js';
import { parsed, rejects, specOf } from '../../support/labels.js';

test('autoscaling is the service\'s (its labels implemented), the in-cluster autoscaler and healers unsupported with the Heat reason; auto-healing is the service\'s', () => {
  for (const l of ['auto_scaling_enabled', 'min_node_count', 'max_node_count', 'auto_healing_enabled', 'auto_healing_controller']) assert.equal(LABEL_CATALOG[l], undefined, `${l} is implemented`);
  assert.match(JSON.stringify(LABEL_CATALOG['autoscaler_tag']), /needs Heat stacks/);
  assert.match(JSON.stringify(LABEL_CATALOG['magnum_auto_healer_tag']), /needs Heat/);
  assert.equal(LABEL_CATALOG['draino_tag']!.status, 'unsupported');
  assert.equal(LABEL_CATALOG['nginx_ingress_controller_tag']!.status, 'unsupported');
  const { spec, warnings } = parseClusterSpec(input({ labels: { auto_scaling_enabled: 'true', max_node_count: '5' } }));
  assert.deepEqual(warnings, []);
  assert.deepEqual(spec.autoScaling, { enabled: true, minNodeCount: 0, maxNodeCount: 5, scaleDownUnneededSeconds: 600 });
  assert.throws(() => parseClusterSpec(input({ labels: { min_node_count: '4', max_node_count: '2' } })), /max_node_count/);
});

test('autoScaling defaults: off, from 0, no upper bound given, 10 minutes of DaemonSet pods only before a node goes', () => {
  assert.deepEqual(specOf().autoScaling, { enabled: false, minNodeCount: 0, maxNodeCount: null, scaleDownUnneededSeconds: 600 });
  assert.deepEqual(specOf({ labels: { auto_scaling_enabled: 'true', min_node_count: '2', max_node_count: '2', autoscaler_scale_down_unneeded_seconds: '0' } }).autoScaling, { enabled: true, minNodeCount: 2, maxNodeCount: 2, scaleDownUnneededSeconds: 0 });
});

test('autoScaling labels: the bounds seed the default group even when off; the scale-down delay is ignored when off; out of range refused', () => {
  const off = parsed({ labels: { min_node_count: '1', max_node_count: '4', autoscaler_scale_down_unneeded_seconds: '60' } });
  assert.deepEqual([off.spec.autoScaling.minNodeCount, off.spec.autoScaling.maxNodeCount], [1, 4]);
  assert.deepEqual(off.warnings, ['Label autoscaler_scale_down_unneeded_seconds is ignored without auto_scaling_enabled=true.']);
  rejects({ max_node_count: '0' }, 'max_node_count', /between 1 and 10000/);
  rejects({ min_node_count: '-1' }, 'min_node_count', /between 0 and 10000/);
  rejects({ min_node_count: '4', max_node_count: '2' }, 'max_node_count', /Must be at least min_node_count \(4\)\./);
  rejects({ auto_scaling_enabled: 'on-demand' }, 'auto_scaling_enabled', /boolean/);
});

test('the module: a core section, after the kubernetes module, and its four labels', () => {
  assert.deepEqual([autoScalingModule.key, autoScalingModule.kind], ['autoScaling', 'core']);
  assert.deepEqual(Object.keys(autoScalingModule.labels), ['auto_scaling_enabled', 'min_node_count', 'max_node_count', 'autoscaler_scale_down_unneeded_seconds']);
  assert.equal(autoScalingModule.labels.autoscaler_scale_down_unneeded_seconds.ignored, 'without auto_scaling_enabled=true');
});
