// Whether a cluster at one Kubernetes version may move to a template's (src/domain/upgrade-path.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { upgradeVerdict } from '../../src/domain/upgrade-path.js';

test('the upgrade verdict refuses a skipped minor', () => {
  const v = upgradeVerdict('v1.34.1', { kube_tag: 'v1.36.0' });
  assert.equal(v.ok, false);
  assert.match((v as { reason: string }).reason, /skips a minor version: upgrade to 1.35.x first/);
  assert.equal(upgradeVerdict('v1.34.1', { kube_tag: 'v1.35.0' }).ok, true);
  assert.equal(upgradeVerdict('v1.34.1', {}).ok, false);
});
