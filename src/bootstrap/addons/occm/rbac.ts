// OCCM RBAC as upstream cloud-provider-openstack ships it (manifests/controller-manager/cloud-controller-manager-roles.yaml),
// plus bindings for the per-controller service accounts that --use-service-account-credentials=true makes OCCM use.

import type { K8sObject } from '../framework.js';
import { clusterRole, clusterRoleBinding, READ, rule, sa, serviceAccount } from '../k8s.js';

export const OCCM_SA = 'cloud-controller-manager';
/** Controllers OCCM runs, each under its own ServiceAccount (named after the controller) when using SA credentials. */
const CONTROLLER_SAS = ['cloud-node-controller', 'cloud-node-lifecycle-controller', 'service-controller', 'route-controller'];

export function occmRbac(): K8sObject[] {
  const ccm = clusterRole('system:cloud-controller-manager', [
    rule(['coordination.k8s.io'], ['leases'], ['get', 'create', 'update']),
    rule([''], ['events'], ['create', 'patch', 'update']),
    rule([''], ['nodes'], ['*']),
    rule([''], ['nodes/status'], ['patch']),
    rule([''], ['services'], ['list', 'patch', 'update', 'watch']),
    rule([''], ['services/status'], ['patch']),
    rule([''], ['serviceaccounts/token'], ['create']),
    rule([''], ['serviceaccounts'], ['create', 'get']),
    rule([''], ['persistentvolumes'], ['*']),
    rule([''], ['endpoints'], ['create', 'get', 'list', 'watch', 'update']),
    rule(['discovery.k8s.io'], ['endpointslices'], READ),
    rule([''], ['configmaps'], READ),
    rule([''], ['secrets'], ['list', 'get', 'watch']),
  ]);
  const node = clusterRole('system:cloud-node-controller', [
    rule([''], ['nodes'], ['*']),
    rule([''], ['nodes/status'], ['patch']),
    rule([''], ['events'], ['create', 'patch', 'update']),
  ]);
  return [
    serviceAccount(OCCM_SA),
    ccm,
    node,
    clusterRoleBinding('system:cloud-controller-manager', 'system:cloud-controller-manager', [sa(OCCM_SA), ...CONTROLLER_SAS.map((n) => sa(n))]),
    clusterRoleBinding('system:cloud-node-controller', 'system:cloud-node-controller', [sa('cloud-node-controller')]),
  ];
}
