// Prometheus of the monitoring add-on: its RBAC, its configuration (Kubernetes service discovery of the
// apiservers, kubelets, cAdvisor and of Services and pods annotated prometheus.io/scrape) and a one-replica
// StatefulSet whose pod rolls when the configuration changes.

import { createHash } from 'node:crypto';
import { stringify } from 'yaml';
import type { K8sObject } from '../../bootstrap/addons/framework.js';
import { clusterRoleBinding, meta, mount, READ, requests, RESTRICTED, rule, sa, service, serviceAccount, workload } from '../../bootstrap/addons/k8s.js';
import { MONITORING_NAMESPACE as NS, type MonitoringSettings } from './settings.js';

const NAME = 'prometheus';
const LABELS = { 'app.kubernetes.io/name': NAME };
const PORT = 9090;
const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
const IN_CLUSTER = { authorization: { type: 'Bearer', credentials_file: `${SA_DIR}/token` } };

/** Keeps the targets whose object carries prometheus.io/scrape=true and takes scheme, path and port from the annotations. */
function annotated(kind: 'service' | 'pod'): Record<string, unknown>[] {
  const a = (n: string) => `__meta_kubernetes_${kind}_annotation_prometheus_io_${n}`;
  return [
    { source_labels: [a('scrape')], action: 'keep', regex: 'true' },
    { source_labels: [a('scheme')], action: 'replace', target_label: '__scheme__', regex: '(https?)' },
    { source_labels: [a('path')], action: 'replace', target_label: '__metrics_path__', regex: '(.+)' },
    { source_labels: ['__address__', a('port')], action: 'replace', target_label: '__address__', regex: '([^:]+)(?::\\d+)?;(\\d+)', replacement: '$1:$2' },
    { source_labels: ['__meta_kubernetes_namespace'], target_label: 'namespace' },
    { source_labels: [`__meta_kubernetes_${kind}_name`], target_label: kind },
  ];
}

export function prometheusConfig(s: MonitoringSettings): string {
  const interval = `${s.intervalSeconds}s`;
  const kubelet = (job: string, path?: string) => ({
    job_name: job,
    scheme: 'https',
    ...(path ? { metrics_path: path } : {}),
    // kubeadm's kubelets serve self-signed certificates (as metrics-server's --kubelet-insecure-tls).
    tls_config: { insecure_skip_verify: true },
    ...IN_CLUSTER,
    kubernetes_sd_configs: [{ role: 'node' }],
    relabel_configs: [{ action: 'labelmap', regex: '__meta_kubernetes_node_label_(.+)' }],
  });
  const config = {
    global: { scrape_interval: interval, evaluation_interval: interval, external_labels: { cluster: s.clusterUuid } },
    scrape_configs: [
      {
        job_name: 'kubernetes-apiservers',
        scheme: 'https',
        tls_config: { ca_file: `${SA_DIR}/ca.crt` },
        ...IN_CLUSTER,
        kubernetes_sd_configs: [{ role: 'endpoints', namespaces: { names: ['default'] } }],
        relabel_configs: [{ source_labels: ['__meta_kubernetes_service_name', '__meta_kubernetes_endpoint_port_name'], action: 'keep', regex: 'kubernetes;https' }],
      },
      kubelet('kubernetes-nodes'),
      kubelet('kubernetes-cadvisor', '/metrics/cadvisor'),
      { job_name: 'kubernetes-service-endpoints', kubernetes_sd_configs: [{ role: 'endpoints' }], relabel_configs: annotated('service') },
      { job_name: 'kubernetes-pods', kubernetes_sd_configs: [{ role: 'pod' }], relabel_configs: annotated('pod') },
    ],
  };
  return stringify(config, { lineWidth: 0 });
}

export function prometheusObjects(s: MonitoringSettings): K8sObject[] {
  const config = prometheusConfig(s);
  const size = `${s.retentionSizeGiB}Gi`;
  // Prometheus' GB are GiB; 90% of the volume leaves room for the WAL and compaction.
  const retentionMb = Math.floor(s.retentionSizeGiB * 1024 * 0.9);
  const pod = {
    serviceAccountName: NAME,
    securityContext: { runAsNonRoot: true, runAsUser: 65534, runAsGroup: 65534, fsGroup: 65534, seccompProfile: { type: 'RuntimeDefault' } },
    containers: [
      {
        name: NAME,
        image: s.images.prometheus,
        args: [
          '--config.file=/etc/prometheus/prometheus.yml',
          '--storage.tsdb.path=/prometheus',
          `--storage.tsdb.retention.time=${s.retentionDays}d`,
          `--storage.tsdb.retention.size=${retentionMb}MB`,
        ],
        ports: [{ name: 'web', containerPort: PORT }],
        readinessProbe: { httpGet: { path: '/-/ready', port: PORT }, periodSeconds: 10 },
        livenessProbe: { httpGet: { path: '/-/healthy', port: PORT }, periodSeconds: 30, failureThreshold: 6 },
        resources: requests('200m', '512Mi'),
        securityContext: RESTRICTED,
        volumeMounts: [mount('config', '/etc/prometheus', { readOnly: true }), mount('data', '/prometheus')],
      },
    ],
    volumes: [{ name: 'config', configMap: { name: 'prometheus-config' } }, ...(s.storageClass ? [] : [{ name: 'data', emptyDir: { sizeLimit: size } }])],
  };
  const sts = workload('StatefulSet', NAME, LABELS, pod, {
    serviceName: NAME,
    replicas: 1,
    ...(s.storageClass
      ? { volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: s.storageClass, resources: { requests: { storage: size } } } }] }
      : {}),
  }, NS);
  // A changed configuration rolls the pod (it is read at start).
  const template = (sts.spec as { template: { metadata: Record<string, unknown> } }).template;
  template.metadata = { ...template.metadata, annotations: { 'checksum/config': createHash('sha256').update(config).digest('hex') } };
  return [
    serviceAccount(NAME, NS),
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: meta(`magnum:${NAME}`),
      rules: [
        rule([''], ['nodes', 'nodes/metrics', 'services', 'endpoints', 'pods'], READ),
        rule(['discovery.k8s.io'], ['endpointslices'], READ),
        { nonResourceURLs: ['/metrics'], verbs: ['get'] },
      ],
    },
    clusterRoleBinding(`magnum:${NAME}`, `magnum:${NAME}`, [sa(NAME, NS)]),
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('prometheus-config', NS, LABELS), data: { 'prometheus.yml': config } },
    sts,
    service(NAME, NS, LABELS, [{ name: 'web', port: PORT }]),
  ];
}
