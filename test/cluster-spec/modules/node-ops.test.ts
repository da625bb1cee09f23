// Core module `nodeOps`: every node's floating IP (Magnum's floating_ip_enabled, the cluster's over the
// template's, default true) and how long a node's drain may wait (label drain_timeout).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_DRAIN_TIMEOUT_SECONDS } from '../../../src/cluster-spec/modules/node-ops.js';
import { rejects, specOf } from '../../support/labels.js';

test('floating IPs on the nodes: the cluster\'s field, else the template\'s, else true', () => {
  assert.equal(specOf({ template: { floating_ip_enabled: undefined } }).nodeOps.floatingIp, true);
  assert.equal(specOf({ template: { floating_ip_enabled: false } }).nodeOps.floatingIp, false);
  assert.equal(specOf({ template: { floating_ip_enabled: false }, cluster: { floating_ip_enabled: true } }).nodeOps.floatingIp, true);
  assert.equal(specOf({ template: { floating_ip_enabled: true }, cluster: { floating_ip_enabled: false } }).nodeOps.floatingIp, false);
});

test('drain_timeout: seconds, 0 for no limit, 600 by default, at most a day', () => {
  assert.equal(DEFAULT_DRAIN_TIMEOUT_SECONDS, 600);
  assert.equal(specOf().nodeOps.drainTimeoutSeconds, 600);
  assert.equal(specOf({ labels: { drain_timeout: '0' } }).nodeOps.drainTimeoutSeconds, 0);
  assert.equal(specOf({ labels: { drain_timeout: '86400' } }).nodeOps.drainTimeoutSeconds, 86_400);
  rejects({ drain_timeout: '86401' }, 'drain_timeout', /between 0 and 86400/);
  rejects({ drain_timeout: '5m' }, 'drain_timeout', /integer/);
});
