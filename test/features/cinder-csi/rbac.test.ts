// Cinder CSI's RBAC, as upstream's: the controller's account bound to one role per sidecar, the node plugin's to
// its events role.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CONTROLLER_SA, NODE_SA, cinderRbac } from '../../../src/features/cinder-csi/rbac.js';

type Binding = { metadata: { name: string }; roleRef: { name: string }; subjects: { name: string; namespace: string }[] };
type Role = { metadata: { name: string }; rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[] };

test('every role bound to its account: the sidecars\' to the controller, the node plugin\'s to the node', () => {
  const objects = cinderRbac();
  assert.deepEqual(objects.filter((o) => o.kind === 'ServiceAccount').map((o) => `${o.metadata.namespace}/${o.metadata.name}`), [`kube-system/${CONTROLLER_SA}`, `kube-system/${NODE_SA}`]);
  const roles = objects.filter((o) => o.kind === 'ClusterRole') as unknown as Role[];
  const bindings = objects.filter((o) => o.kind === 'ClusterRoleBinding') as unknown as Binding[];
  assert.deepEqual(roles.map((r) => r.metadata.name), ['csi-attacher-role', 'csi-provisioner-role', 'csi-snapshotter-role', 'csi-resizer-role', 'csi-nodeplugin-role']);
  assert.deepEqual(bindings.map((b) => `${b.metadata.name}->${b.roleRef.name}:${b.subjects.map((s) => s.name).join()}`), [
    `csi-attacher-binding->csi-attacher-role:${CONTROLLER_SA}`,
    `csi-provisioner-binding->csi-provisioner-role:${CONTROLLER_SA}`,
    `csi-snapshotter-binding->csi-snapshotter-role:${CONTROLLER_SA}`,
    `csi-resizer-binding->csi-resizer-role:${CONTROLLER_SA}`,
    `csi-nodeplugin-binding->csi-nodeplugin-role:${NODE_SA}`,
  ]);
});

test('what the sidecars may do: provision and delete volumes, attach them, resize claims; every controller sidecar elects a leader; no Secrets', () => {
  const roles = Object.fromEntries((cinderRbac().filter((o) => o.kind === 'ClusterRole') as unknown as Role[]).map((r) => [r.metadata.name, r.rules]));
  const can = (role: string, resource: string, verb: string) => roles[role]!.some((r) => r.resources.includes(resource) && r.verbs.includes(verb));
  assert.ok(can('csi-provisioner-role', 'persistentvolumes', 'create') && can('csi-provisioner-role', 'persistentvolumes', 'delete'));
  assert.ok(can('csi-attacher-role', 'volumeattachments/status', 'patch'));
  assert.ok(can('csi-resizer-role', 'persistentvolumeclaims/status', 'patch'));
  for (const role of ['csi-attacher-role', 'csi-provisioner-role', 'csi-snapshotter-role', 'csi-resizer-role']) assert.ok(can(role, 'leases', 'update'), role);
  assert.ok(!Object.values(roles).flat().some((r) => r.resources.includes('secrets')));
});
