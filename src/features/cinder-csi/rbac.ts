// Cinder CSI RBAC, as upstream cloud-provider-openstack manifests/cinder-csi-plugin/*-rbac.yaml (one role per sidecar).

import type { K8sObject } from '../../bootstrap/addons/framework.js';
import { clusterRole, clusterRoleBinding, READ, rule, sa, serviceAccount } from '../../bootstrap/addons/k8s.js';

export const CONTROLLER_SA = 'csi-cinder-controller-sa';
export const NODE_SA = 'csi-cinder-node-sa';

const CONTROLLER_ROLES: Record<string, ReturnType<typeof rule>[]> = {
  'csi-attacher-role': [
    rule([''], ['persistentvolumes'], ['get', 'list', 'watch', 'patch']),
    rule(['storage.k8s.io'], ['csinodes'], READ),
    rule(['storage.k8s.io'], ['volumeattachments'], ['get', 'list', 'watch', 'patch']),
    rule(['storage.k8s.io'], ['volumeattachments/status'], ['patch']),
    rule(['coordination.k8s.io'], ['leases'], ['get', 'watch', 'list', 'delete', 'update', 'create']),
  ],
  'csi-provisioner-role': [
    rule([''], ['persistentvolumes'], ['get', 'list', 'watch', 'create', 'delete', 'patch']),
    rule([''], ['persistentvolumeclaims'], ['get', 'list', 'watch', 'update']),
    rule(['storage.k8s.io'], ['storageclasses'], READ),
    rule([''], ['nodes'], READ),
    rule(['storage.k8s.io'], ['csinodes'], READ),
    rule([''], ['events'], ['list', 'watch', 'create', 'update', 'patch']),
    rule(['snapshot.storage.k8s.io'], ['volumesnapshots'], ['get', 'list']),
    rule(['snapshot.storage.k8s.io'], ['volumesnapshotcontents'], ['get', 'list']),
    rule(['storage.k8s.io'], ['volumeattachments'], READ),
    rule(['coordination.k8s.io'], ['leases'], ['get', 'watch', 'list', 'delete', 'update', 'create']),
  ],
  'csi-snapshotter-role': [
    rule([''], ['events'], ['list', 'watch', 'create', 'update', 'patch']),
    rule(['snapshot.storage.k8s.io'], ['volumesnapshotclasses'], READ),
    rule(['snapshot.storage.k8s.io'], ['volumesnapshotcontents'], ['create', 'get', 'list', 'watch', 'update', 'delete', 'patch']),
    rule(['snapshot.storage.k8s.io'], ['volumesnapshotcontents/status'], ['update', 'patch']),
    rule(['coordination.k8s.io'], ['leases'], ['get', 'watch', 'list', 'delete', 'update', 'create']),
  ],
  'csi-resizer-role': [
    rule([''], ['persistentvolumes'], ['get', 'list', 'watch', 'patch']),
    rule([''], ['persistentvolumeclaims'], READ),
    rule([''], ['pods'], READ),
    rule([''], ['persistentvolumeclaims/status'], ['patch']),
    rule([''], ['events'], ['list', 'watch', 'create', 'update', 'patch']),
    rule(['storage.k8s.io'], ['volumeattributesclasses'], READ),
    rule(['coordination.k8s.io'], ['leases'], ['get', 'watch', 'list', 'delete', 'update', 'create']),
  ],
};

export function cinderRbac(): K8sObject[] {
  const controller = Object.entries(CONTROLLER_ROLES).flatMap(([name, rules]) => [
    clusterRole(name, rules),
    clusterRoleBinding(name.replace(/-role$/, '-binding'), name, [sa(CONTROLLER_SA)]),
  ]);
  return [
    serviceAccount(CONTROLLER_SA),
    ...controller,
    serviceAccount(NODE_SA),
    clusterRole('csi-nodeplugin-role', [rule([''], ['events'], ['get', 'list', 'watch', 'create', 'update', 'patch'])]),
    clusterRoleBinding('csi-nodeplugin-binding', 'csi-nodeplugin-role', [sa(NODE_SA)]),
  ];
}
