// Core module `autoHealing` (Magnum's auto_healing_* labels): the service replaces workers that stay unhealthy;
// no healer runs in the cluster.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_UNHEALTHY_PERCENT } from '../../../src/features/auto-healing/module.js';
import { LABEL_CATALOG } from '../../../src/cluster-spec/labels/catalog.js';
import { parsed, rejects, specOf } from '../../support/labels.js';

test('autoHealing defaults: off, 5 minutes unhealthy before a replacement, nothing replaced when over 40% are unhealthy', () => {
  assert.equal(MAX_UNHEALTHY_PERCENT, 40);
  assert.deepEqual(specOf().autoHealing, { enabled: false, unhealthySeconds: 300, maxUnhealthyPercent: 40 });
  assert.deepEqual(specOf({ labels: { auto_healing_enabled: 'true', auto_healing_unhealthy_seconds: '120' } }).autoHealing, { enabled: true, unhealthySeconds: 120, maxUnhealthyPercent: 40 });
});

test('auto_healing_controller: either of Magnum\'s values means the service\'s replacement; both tuning labels are ignored, with a warning each, when off', () => {
  for (const controller of ['draino', 'magnum-auto-healer']) {
    const { spec, warnings } = parsed({ labels: { auto_healing_enabled: 'true', auto_healing_controller: controller } });
    assert.equal(spec.autoHealing.enabled, true, controller);
    assert.deepEqual(warnings, []);
  }
  assert.deepEqual(parsed({ labels: { auto_healing_controller: 'draino', auto_healing_unhealthy_seconds: '60' } }).warnings, [
    'Label auto_healing_controller is ignored without auto_healing_enabled=true.',
    'Label auto_healing_unhealthy_seconds is ignored without auto_healing_enabled=true.',
  ]);
  rejects({ auto_healing_controller: 'node-problem-detector' }, 'auto_healing_controller', /Expected one of: draino, magnum-auto-healer/);
  rejects({ auto_healing_unhealthy_seconds: '5' }, 'auto_healing_unhealthy_seconds', /between 10 and 86400/);
  assert.equal(LABEL_CATALOG['auto_healing_enabled'], undefined, 'implemented, not catalogued');
});
