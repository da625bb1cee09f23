// The monitoring add-on's shared names: its namespace, and node-exporter's host port, which the network plan opens
// between the nodes exactly when monitoring is on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MONITORING_NAMESPACE, NODE_EXPORTER_PORT } from '../../../src/features/monitoring/settings.js';
import { networkPlan } from '../../../src/cluster-spec/network-plan.js';
import { addon, find, rendered } from '../../support/addons.js';

test('node-exporter listens where the network plan opens, in the namespace every part uses', () => {
  assert.equal(MONITORING_NAMESPACE, 'monitoring');
  const { spec, addons } = rendered({ labels: { monitoring_enabled: 'true' } });
  const ds = find<{ metadata: { namespace: string }; spec: { template: { spec: { containers: { ports: { containerPort: number }[] }[] } } } }>(addon(addons, 'monitoring'), 'DaemonSet', 'node-exporter');
  assert.equal(ds.metadata.namespace, MONITORING_NAMESPACE);
  assert.equal(ds.spec.template.spec.containers[0]!.ports[0]!.containerPort, NODE_EXPORTER_PORT);
  const opened = networkPlan(spec).securityGroups.worker.rules.filter((r) => r.portRangeMin === NODE_EXPORTER_PORT);
  assert.deepEqual(opened.map((r) => [r.protocol, r.portRangeMax, r.remote]), [['tcp', NODE_EXPORTER_PORT, { group: 'control-plane' }], ['tcp', NODE_EXPORTER_PORT, { group: 'worker' }]]);
});
