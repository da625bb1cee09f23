// The Kubernetes labels of Magnum's wire contract (magnum-api spec §7), in Magnum's order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SECTION_7_LABELS } from '../../../src/cluster-spec/labels/magnum-labels.js';

test('§7 lists each label once, as a label name, from kube_tag to max_node_count', () => {
  assert.equal(new Set(SECTION_7_LABELS).size, SECTION_7_LABELS.length);
  for (const name of SECTION_7_LABELS) assert.match(name, /^[a-z0-9_]+$/, name);
  assert.equal(SECTION_7_LABELS[0], 'kube_tag');
  assert.equal(SECTION_7_LABELS.at(-1), 'max_node_count');
  for (const name of ['calico_ipv4pool', 'master_lb_allowed_cidrs', 'keystone_auth_enabled', 'monitoring_enabled', 'auto_healing_enabled']) assert.ok(SECTION_7_LABELS.includes(name), name);
  for (const name of ['barbican_kms_enabled', 'api_dns_zone', 'drain_timeout']) assert.ok(!SECTION_7_LABELS.includes(name), `${name} is this service's own`);
});
