// Add-on `metrics-server` (upstream components.yaml of the pinned release). kubeadm's kubelet serving certificates
// are self-signed, so it runs with --kubelet-insecure-tls (spec k8s-bootstrap §3).

import { bool, label } from '../../cluster-spec/labels/types.js';
import { defineAddon, ORDER, settingsOf, type K8sObject } from '../../bootstrap/addons/framework.js';
import { clusterRole, clusterRoleBinding, KUBE_SYSTEM, meta, mount, READ, requests, roleBinding, rule, sa, serviceAccount, workload } from '../../bootstrap/addons/k8s.js';

const NAME = 'metrics-server';
const LABELS = { 'k8s-app': NAME };

export interface MetricsServerSettings {
  enabled: boolean;
  image: string;
}

export const metricsServerAddon = defineAddon({
  key: 'metricsServer',
  kind: 'addon',
  name: 'metrics-server',
  order: ORDER.metricsServer,
  labels: {
    metrics_server_enabled: label(bool, 'Install metrics-server (kubectl top, HPA resource metrics). Default true.'),
  },
  resolve(l, ctx): MetricsServerSettings {
    const k = ctx.spec.kubernetes!;
    return { enabled: l.metrics_server_enabled ?? true, image: `${k.imageRepository || 'registry.k8s.io/metrics-server'}/metrics-server:${k.components.metricsServer}` };
  },
  enabled: (spec) => settingsOf<MetricsServerSettings>(spec, 'metricsServer').enabled,
  render(spec): K8sObject[] {
    const s = settingsOf<MetricsServerSettings>(spec, 'metricsServer');
    const subject = [sa(NAME)];
    return [
      serviceAccount(NAME),
      clusterRole('system:aggregated-metrics-reader', [rule(['metrics.k8s.io'], ['pods', 'nodes'], READ)], {
        'rbac.authorization.k8s.io/aggregate-to-admin': 'true',
        'rbac.authorization.k8s.io/aggregate-to-edit': 'true',
        'rbac.authorization.k8s.io/aggregate-to-view': 'true',
      }),
      clusterRole('system:metrics-server', [rule([''], ['nodes/metrics'], ['get']), rule([''], ['pods', 'nodes'], READ)]),
      roleBinding('metrics-server-auth-reader', KUBE_SYSTEM, { kind: 'Role', name: 'extension-apiserver-authentication-reader' }, subject),
      clusterRoleBinding('metrics-server:system:auth-delegator', 'system:auth-delegator', subject),
      clusterRoleBinding('system:metrics-server', 'system:metrics-server', subject),
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: meta(NAME, KUBE_SYSTEM, LABELS),
        spec: { selector: LABELS, ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 'https' }] },
      },
      deployment(s.image),
      {
        apiVersion: 'apiregistration.k8s.io/v1',
        kind: 'APIService',
        metadata: meta('v1beta1.metrics.k8s.io', undefined, LABELS),
        spec: {
          group: 'metrics.k8s.io',
          version: 'v1beta1',
          groupPriorityMinimum: 100,
          versionPriority: 100,
          insecureSkipTLSVerify: true,
          service: { name: NAME, namespace: KUBE_SYSTEM },
        },
      },
    ];
  },
});

function deployment(image: string): K8sObject {
  return workload('Deployment', NAME, LABELS, {
    serviceAccountName: NAME,
    priorityClassName: 'system-cluster-critical',
    nodeSelector: { 'kubernetes.io/os': 'linux' },
    containers: [
      {
        name: NAME,
        image,
        imagePullPolicy: 'IfNotPresent',
        args: ['--cert-dir=/tmp', '--secure-port=10250', '--kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname', '--kubelet-use-node-status-port', '--metric-resolution=15s', '--kubelet-insecure-tls'],
        ports: [{ containerPort: 10250, name: 'https', protocol: 'TCP' }],
        livenessProbe: { failureThreshold: 3, httpGet: { path: '/livez', port: 'https', scheme: 'HTTPS' }, periodSeconds: 10 },
        readinessProbe: { failureThreshold: 3, httpGet: { path: '/readyz', port: 'https', scheme: 'HTTPS' }, initialDelaySeconds: 20, periodSeconds: 10 },
        resources: requests('100m', '200Mi'),
        securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, readOnlyRootFilesystem: true, runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' } },
        volumeMounts: [mount('tmp-dir', '/tmp')],
      },
    ],
    volumes: [{ name: 'tmp-dir', emptyDir: {} }],
  }, { strategy: { rollingUpdate: { maxUnavailable: 0 } } });
}
