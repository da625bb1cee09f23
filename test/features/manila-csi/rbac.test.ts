// Manila CSI's RBAC: the controller's rights (provisioning, resizing, leader election in kube-system); the node
// plugin talks to no API and has none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MANILA_CONTROLLER_SA, MANILA_NODE_SA, manilaRbac } from '../../../src/features/manila-csi/rbac.js';

type Rules = { rules: { resources: string[]; verbs: string[] }[] };

test('two accounts; only the controller\'s is bound, cluster-wide for volumes, in kube-system for its leases', () => {
  const objects = manilaRbac();
  const name = `system:${MANILA_CONTROLLER_SA}`;
  assert.deepEqual(objects.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`), [
    `ServiceAccount/kube-system/${MANILA_CONTROLLER_SA}`,
    `ServiceAccount/kube-system/${MANILA_NODE_SA}`,
    `ClusterRole//${name}`,
    `ClusterRoleBinding//${name}`,
    `Role/kube-system/${name}`,
    `RoleBinding/kube-system/${name}`,
  ]);
  assert.ok(!JSON.stringify(objects.filter((o) => /Binding$/.test(o.kind))).includes(MANILA_NODE_SA), 'the node plugin\'s account is bound to nothing');
  const cluster = objects.find((o) => o.kind === 'ClusterRole') as unknown as Rules;
  const can = (r: Rules, res: string, verb: string) => r.rules.some((x) => x.resources.includes(res) && x.verbs.includes(verb));
  assert.ok(can(cluster, 'persistentvolumes', 'create') && can(cluster, 'persistentvolumes', 'delete') && can(cluster, 'persistentvolumeclaims/status', 'patch'));
  assert.ok(can(cluster, 'secrets', 'get') && !can(cluster, 'secrets', 'list'), 'it reads the StorageClass\'s Secret by name only');
  assert.ok(!can(cluster, 'leases', 'update'));
  assert.ok(can(objects.find((o) => o.kind === 'Role') as unknown as Rules, 'leases', 'update'));
});
