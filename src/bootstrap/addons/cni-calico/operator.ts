// The tigera-operator objects (compact form of upstream manifests/tigera-operator.yaml without its CRDs):
// the operator runs with --manage-crds=true and installs/upgrades the operator.tigera.io and projectcalico.org
// CRDs itself at start-up, so this manifest stays small and the CRDs always match the operator's Calico release.

import type { K8sObject } from '../framework.js';
import { clusterRole, clusterRoleBinding, fieldEnv, meta, requests, rule, sa, serviceAccount } from '../k8s.js';

export const OPERATOR_NS = 'tigera-operator';
export const OPERATOR_SA = 'tigera-operator';
const ALL = ['*'];

/** The operator creates the RBAC of calico-node/kube-controllers/typha, hence `bind`/`escalate` on roles. */
function operatorRole(): K8sObject {
  return clusterRole('tigera-operator', [
    rule([''], ['namespaces', 'pods', 'podtemplates', 'services', 'endpoints', 'events', 'configmaps', 'secrets', 'serviceaccounts', 'resourcequotas'], ALL),
    rule([''], ['nodes'], ['get', 'list', 'watch', 'patch', 'update']),
    rule(['apps'], ['deployments', 'daemonsets', 'statefulsets', 'replicasets'], ALL),
    rule(['rbac.authorization.k8s.io'], ['clusterroles', 'clusterrolebindings', 'roles', 'rolebindings'], ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'bind', 'escalate']),
    rule(['apiextensions.k8s.io'], ['customresourcedefinitions'], ['get', 'list', 'watch', 'create', 'update', 'patch']),
    rule(['operator.tigera.io'], ALL, ALL),
    rule(['crd.projectcalico.org', 'projectcalico.org'], ALL, ALL),
    rule(['policy'], ['poddisruptionbudgets'], ALL),
    rule(['networking.k8s.io'], ['networkpolicies'], ALL),
    rule(['coordination.k8s.io'], ['leases'], ALL),
    rule(['admissionregistration.k8s.io'], ['validatingwebhookconfigurations', 'mutatingwebhookconfigurations', 'validatingadmissionpolicies', 'validatingadmissionpolicybindings'], ALL),
    rule(['apiregistration.k8s.io'], ['apiservices'], ALL),
    rule(['scheduling.k8s.io'], ['priorityclasses'], ALL),
    rule(['certificates.k8s.io'], ['certificatesigningrequests'], ['get', 'list', 'watch', 'create']),
    rule(['storage.k8s.io'], ['csidrivers'], ALL),
    rule(['discovery.k8s.io'], ['endpointslices'], ['get', 'list', 'watch']),
    rule(['autoscaling'], ['horizontalpodautoscalers'], ALL),
    rule(['batch'], ['jobs', 'cronjobs'], ALL),
  ]);
}

export function operatorObjects(imageRef: string): K8sObject[] {
  const labels = { name: 'tigera-operator', 'k8s-app': 'tigera-operator' };
  const deployment: K8sObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: meta('tigera-operator', OPERATOR_NS, labels),
    spec: {
      replicas: 1,
      selector: { matchLabels: { name: 'tigera-operator' } },
      template: {
        metadata: { labels },
        spec: {
          nodeSelector: { 'kubernetes.io/os': 'linux' },
          tolerations: [{ effect: 'NoExecute', operator: 'Exists' }, { effect: 'NoSchedule', operator: 'Exists' }],
          serviceAccountName: OPERATOR_SA,
          hostNetwork: true,
          dnsPolicy: 'ClusterFirstWithHostNet',
          containers: [
            {
              name: 'tigera-operator',
              image: imageRef,
              imagePullPolicy: 'IfNotPresent',
              command: ['operator'],
              args: ['-manage-crds=true'],
              resources: requests('100m', '128Mi'),
              env: [
                { name: 'WATCH_NAMESPACE', value: '' },
                fieldEnv('POD_NAME', 'metadata.name'),
                { name: 'OPERATOR_NAME', value: 'tigera-operator' },
                { name: 'TIGERA_OPERATOR_INIT_IMAGE_VERSION', value: imageRef.slice(imageRef.lastIndexOf(':') + 1) },
              ],
              envFrom: [{ configMapRef: { name: 'kubernetes-services-endpoint', optional: true } }],
            },
          ],
        },
      },
    },
  };
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: meta(OPERATOR_NS, undefined, { name: OPERATOR_NS, 'pod-security.kubernetes.io/enforce': 'privileged' }) },
    serviceAccount(OPERATOR_SA, OPERATOR_NS),
    operatorRole(),
    clusterRoleBinding('tigera-operator', 'tigera-operator', [sa(OPERATOR_SA, OPERATOR_NS)]),
    deployment,
  ];
}
