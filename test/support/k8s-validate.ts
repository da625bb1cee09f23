// Test helper: validates rendered objects with kubernetes-models (OpenAPI schemas of Kubernetes 1.3x), and
// CRs it cannot know (operator.tigera.io) with a small structural check against what our CRD consumer expects.

import assert from 'node:assert/strict';
import { APIService } from 'kubernetes-models/apiregistration.k8s.io/v1';
import { DaemonSet, Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1';
import { CSIDriver, StorageClass } from 'kubernetes-models/storage.k8s.io/v1';
import { ConfigMap, Namespace, Secret, Service, ServiceAccount } from 'kubernetes-models/v1';
import type { K8sObject } from '../../src/bootstrap/addons/framework.js';

type Model = new (data: never) => { validate(): void };
const MODELS: Record<string, Model> = {
  'v1/Namespace': Namespace,
  'v1/Secret': Secret,
  'v1/ConfigMap': ConfigMap,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
  'apps/v1/Deployment': Deployment,
  'apps/v1/DaemonSet': DaemonSet,
  'apps/v1/StatefulSet': StatefulSet,
  'rbac.authorization.k8s.io/v1/Role': Role,
  'rbac.authorization.k8s.io/v1/ClusterRole': ClusterRole,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': ClusterRoleBinding,
  'rbac.authorization.k8s.io/v1/RoleBinding': RoleBinding,
  'storage.k8s.io/v1/CSIDriver': CSIDriver,
  'storage.k8s.io/v1/StorageClass': StorageClass,
  'apiregistration.k8s.io/v1/APIService': APIService,
};

/** Structural checks for custom resources (their CRDs are installed by an operator, not known to kubernetes-models). */
const CUSTOM: Record<string, (o: K8sObject) => void> = {
  'operator.tigera.io/v1/Installation': (o) => {
    assert.equal(o.metadata.name, 'default', 'the operator only reconciles the Installation named default');
    const spec = o.spec as { variant: string; calicoNetwork: { ipPools: { cidr: string; encapsulation: string; natOutgoing: string; blockSize: number }[] } };
    assert.equal(spec.variant, 'Calico');
    assert.equal(spec.calicoNetwork.ipPools.length, 1);
    const pool = spec.calicoNetwork.ipPools[0]!;
    assert.match(pool.cidr, /^\d+\.\d+\.\d+\.\d+\/\d+$/);
    assert.ok(['IPIP', 'IPIPCrossSubnet', 'VXLAN', 'VXLANCrossSubnet', 'None'].includes(pool.encapsulation));
    assert.ok(['Enabled', 'Disabled'].includes(pool.natOutgoing));
    assert.ok(pool.blockSize >= 20 && pool.blockSize <= 32);
  },
};

export function isCustomResource(o: K8sObject): boolean {
  return `${o.apiVersion}/${o.kind}` in CUSTOM;
}

export function validateObject(o: K8sObject): void {
  const key = `${o.apiVersion}/${o.kind}`;
  const custom = CUSTOM[key];
  if (custom) return custom(o);
  const M = MODELS[key];
  assert.ok(M, `no validator for ${key} (${o.metadata.name}): add it to test/support/k8s-validate.ts`);
  assert.match(o.metadata.name, /^[a-z0-9]([-a-z0-9.:]*[a-z0-9])?$/, `${key} name ${o.metadata.name}`);
  new M(o as never).validate();
}

interface Container {
  name: string;
  image: string;
  resources?: { requests?: { cpu?: string; memory?: string } };
}

/** Pod templates of Deployments/DaemonSets/StatefulSets: pinned images, resource requests, explicit service account. */
export function podTemplates(objects: readonly K8sObject[]): { owner: string; serviceAccountName?: string; automountServiceAccountToken?: boolean; containers: Container[] }[] {
  return objects
    .filter((o) => o.kind === 'Deployment' || o.kind === 'DaemonSet' || o.kind === 'StatefulSet')
    .map((o) => {
      const pod = (o.spec as { template: { spec: { serviceAccountName?: string; automountServiceAccountToken?: boolean; containers: Container[]; initContainers?: Container[] } } }).template.spec;
      return {
        owner: `${o.kind}/${o.metadata.name}`,
        serviceAccountName: pod.serviceAccountName,
        ...(pod.automountServiceAccountToken === undefined ? {} : { automountServiceAccountToken: pod.automountServiceAccountToken }),
        containers: [...(pod.initContainers ?? []), ...pod.containers],
      };
    });
}
