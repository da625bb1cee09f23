// Add-on `dns-autoscaler`: cluster-proportional-autoscaler scaling kubeadm's CoreDNS Deployment with the
// cluster's size (what Magnum's clusters ran as kube-dns-autoscaler). Linear mode: one replica per 16 nodes or
// 256 cores, whichever asks more, at least 2 (one per control plane would not survive a node loss) and never
// more than the nodes; preventSinglePointFailure keeps 2 once there are 2 nodes.

import { bool, label } from '../../cluster-spec/labels/types.js';
import { defineAddon, ORDER, settingsOf, type K8sObject } from '../../bootstrap/addons/framework.js';
import { clusterRole, clusterRoleBinding, KUBE_SYSTEM, requests, rule, sa, serviceAccount, workload } from '../../bootstrap/addons/k8s.js';

const NAME = 'dns-autoscaler';
const LABELS = { 'k8s-app': NAME };
/** The ConfigMap the autoscaler reads its parameters from (it writes the defaults there when absent). */
export const DNS_AUTOSCALER_PARAMS = { coresPerReplica: 256, nodesPerReplica: 16, min: 2, preventSinglePointFailure: true, includeUnschedulableNodes: true };

export interface DnsAutoscalerSettings {
  enabled: boolean;
  image: string;
}

export const dnsAutoscalerAddon = defineAddon({
  key: 'dnsAutoscaler',
  kind: 'addon',
  name: 'dns-autoscaler',
  order: ORDER.dnsAutoscaler,
  labels: {
    dns_autoscaler_enabled: label(
      bool,
      "Not a Magnum label. Magnum always ran kube-dns-autoscaler; this can turn it off. Scale CoreDNS with the cluster's nodes and cores (cluster-proportional-autoscaler, linear: a replica per 16 nodes or 256 cores, at least 2). Default true.",
    ),
  },
  resolve(l, ctx): DnsAutoscalerSettings {
    const k = ctx.spec.kubernetes!;
    return { enabled: l.dns_autoscaler_enabled ?? true, image: `${k.imageRepository || 'registry.k8s.io/cpa'}/cluster-proportional-autoscaler:${k.components.dnsAutoscaler}` };
  },
  enabled: (spec) => settingsOf<DnsAutoscalerSettings>(spec, 'dnsAutoscaler').enabled,
  render(spec): K8sObject[] {
    const s = settingsOf<DnsAutoscalerSettings>(spec, 'dnsAutoscaler');
    return [
      serviceAccount(NAME),
      clusterRole(`system:${NAME}`, [
        rule([''], ['nodes'], ['list', 'watch']),
        rule([''], ['replicationcontrollers/scale'], ['get', 'update']),
        rule(['apps'], ['deployments/scale', 'replicasets/scale'], ['get', 'update']),
        rule([''], ['configmaps'], ['get', 'create']),
      ]),
      clusterRoleBinding(`system:${NAME}`, `system:${NAME}`, [sa(NAME)]),
      deployment(s.image),
    ];
  },
});

function deployment(img: string): K8sObject {
  return workload('Deployment', NAME, LABELS, {
    serviceAccountName: NAME,
    priorityClassName: 'system-cluster-critical',
    nodeSelector: { 'kubernetes.io/os': 'linux' },
    securityContext: { runAsNonRoot: true, runAsUser: 65534, fsGroup: 65534, seccompProfile: { type: 'RuntimeDefault' } },
    tolerations: [{ key: 'CriticalAddonsOnly', operator: 'Exists' }, { key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' }],
    containers: [
      {
        name: 'autoscaler',
        image: img,
        imagePullPolicy: 'IfNotPresent',
        command: [
          '/cluster-proportional-autoscaler',
          `--namespace=${KUBE_SYSTEM}`,
          `--configmap=${NAME}`,
          '--target=Deployment/coredns',
          `--default-params=${JSON.stringify({ linear: DNS_AUTOSCALER_PARAMS })}`,
          '--logtostderr=true',
          '--v=2',
        ],
        resources: requests('20m', '10Mi'),
        securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, readOnlyRootFilesystem: true },
      },
    ],
  });
}
