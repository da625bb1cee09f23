// Manila CSI RBAC: the controller's rights (external-provisioner and external-resizer, with leader election); the
// node plugin talks to no API (its credentials come with each NodeStage call), so its account mounts no token.

import type { K8sObject } from '../../bootstrap/addons/framework.js';
import { clusterRole, clusterRoleBinding, KUBE_SYSTEM, READ, role, roleBinding, rule, sa, serviceAccount } from '../../bootstrap/addons/k8s.js';

export const MANILA_CONTROLLER_SA = 'openstack-manila-csi-controllerplugin';
export const MANILA_NODE_SA = 'openstack-manila-csi-nodeplugin';

export function manilaRbac(): K8sObject[] {
  const controller = `system:${MANILA_CONTROLLER_SA}`;
  return [
    serviceAccount(MANILA_CONTROLLER_SA),
    serviceAccount(MANILA_NODE_SA),
    clusterRole(controller, [
      rule([''], ['persistentvolumes'], [...READ, 'create', 'delete', 'patch']),
      rule([''], ['persistentvolumeclaims'], [...READ, 'update']),
      rule([''], ['persistentvolumeclaims/status'], ['patch']),
      rule(['storage.k8s.io'], ['storageclasses', 'csinodes'], READ),
      rule([''], ['nodes'], READ),
      rule([''], ['secrets'], ['get']),
      rule([''], ['events'], ['list', 'watch', 'create', 'update', 'patch']),
    ]),
    clusterRoleBinding(controller, controller, [sa(MANILA_CONTROLLER_SA)]),
    role(controller, KUBE_SYSTEM, [rule(['coordination.k8s.io'], ['leases'], ['get', 'watch', 'list', 'delete', 'update', 'create'])]),
    roleBinding(controller, KUBE_SYSTEM, { kind: 'Role', name: controller }, [sa(MANILA_CONTROLLER_SA)]),
  ];
}
