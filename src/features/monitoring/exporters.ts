// The monitoring add-on's exporters: node-exporter on every node (host network, so its port is opened between
// nodes by the network plan) and kube-state-metrics, both found by Prometheus through their annotated Services.
// kube-state-metrics reads no Secrets or ConfigMaps: their collectors are left out, and so are the rights.

import type { K8sObject } from '../../bootstrap/addons/framework.js';
import { clusterRole, clusterRoleBinding, hostPath, mount, requests, RESTRICTED, rule, sa, service, serviceAccount, TOLERATE_ALL, workload } from '../../bootstrap/addons/k8s.js';
import { MONITORING_NAMESPACE as NS, NODE_EXPORTER_PORT, type MonitoringSettings } from './settings.js';

const SCRAPE = (port: number) => ({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': String(port) });
const KSM = 'kube-state-metrics';
const KSM_LABELS = { 'app.kubernetes.io/name': KSM };
const NE = 'node-exporter';
const NE_LABELS = { 'app.kubernetes.io/name': NE };

/** Per API group, the resources kube-state-metrics reports on (its --resources list is the union). */
const KSM_RESOURCES: Record<string, string[]> = {
  '': ['nodes', 'pods', 'services', 'endpoints', 'namespaces', 'persistentvolumeclaims', 'persistentvolumes', 'replicationcontrollers', 'resourcequotas', 'limitranges'],
  apps: ['daemonsets', 'deployments', 'replicasets', 'statefulsets'],
  batch: ['cronjobs', 'jobs'],
  autoscaling: ['horizontalpodautoscalers'],
  'networking.k8s.io': ['ingresses', 'networkpolicies'],
  policy: ['poddisruptionbudgets'],
  'storage.k8s.io': ['storageclasses', 'volumeattachments'],
  'certificates.k8s.io': ['certificatesigningrequests'],
  'coordination.k8s.io': ['leases'],
  'admissionregistration.k8s.io': ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations'],
};

export function exporterObjects(s: MonitoringSettings): K8sObject[] {
  return [...nodeExporter(s), ...kubeStateMetrics(s)];
}

function nodeExporter(s: MonitoringSettings): K8sObject[] {
  const ds = workload(
    'DaemonSet',
    NE,
    NE_LABELS,
    {
      serviceAccountName: NE,
      // It needs nothing from the API.
      automountServiceAccountToken: false,
      hostNetwork: true,
      hostPID: true,
      tolerations: TOLERATE_ALL,
      securityContext: { runAsNonRoot: true, runAsUser: 65534, runAsGroup: 65534 },
      containers: [
        {
          name: NE,
          image: s.images.nodeExporter,
          args: ['--path.procfs=/host/proc', '--path.sysfs=/host/sys', '--path.rootfs=/host/root', `--web.listen-address=:${NODE_EXPORTER_PORT}`],
          ports: [{ name: 'metrics', containerPort: NODE_EXPORTER_PORT }],
          readinessProbe: { httpGet: { path: '/', port: NODE_EXPORTER_PORT } },
          resources: requests('10m', '32Mi'),
          securityContext: RESTRICTED,
          volumeMounts: [
            mount('proc', '/host/proc', { readOnly: true }),
            mount('sys', '/host/sys', { readOnly: true }),
            mount('root', '/host/root', { readOnly: true, mountPropagation: 'HostToContainer' }),
          ],
        },
      ],
      volumes: [hostPath('proc', '/proc'), hostPath('sys', '/sys'), hostPath('root', '/')],
    },
    { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '10%' } } },
    NS,
  );
  return [serviceAccount(NE, NS), ds, service(NE, NS, NE_LABELS, [{ name: 'metrics', port: NODE_EXPORTER_PORT }], SCRAPE(NODE_EXPORTER_PORT))];
}

function kubeStateMetrics(s: MonitoringSettings): K8sObject[] {
  const deployment = workload(
    'Deployment',
    KSM,
    KSM_LABELS,
    {
      serviceAccountName: KSM,
      securityContext: { runAsNonRoot: true, runAsUser: 65534, runAsGroup: 65534, seccompProfile: { type: 'RuntimeDefault' } },
      containers: [
        {
          name: KSM,
          image: s.images.kubeStateMetrics,
          args: [`--resources=${Object.values(KSM_RESOURCES).flat().sort().join(',')}`, '--port=8080', '--telemetry-port=8081'],
          ports: [
            { name: 'http-metrics', containerPort: 8080 },
            { name: 'telemetry', containerPort: 8081 },
          ],
          livenessProbe: { httpGet: { path: '/livez', port: 8080 }, initialDelaySeconds: 5 },
          readinessProbe: { httpGet: { path: '/readyz', port: 8081 }, initialDelaySeconds: 5 },
          resources: requests('10m', '64Mi'),
          securityContext: RESTRICTED,
        },
      ],
    },
    { replicas: 1 },
    NS,
  );
  return [
    serviceAccount(KSM, NS),
    clusterRole(`magnum:${KSM}`, Object.entries(KSM_RESOURCES).map(([group, resources]) => rule([group], resources, ['list', 'watch']))),
    clusterRoleBinding(`magnum:${KSM}`, `magnum:${KSM}`, [sa(KSM, NS)]),
    deployment,
    service(KSM, NS, KSM_LABELS, [{ name: 'http-metrics', port: 8080 }], SCRAPE(8080)),
  ];
}
