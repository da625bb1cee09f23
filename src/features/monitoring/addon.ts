// Add-on `monitoring` (Magnum's monitoring_enabled): Prometheus scraping the apiservers, the kubelets and
// cAdvisor, node-exporter and kube-state-metrics, with Grafana reading it, in namespace `monitoring`. Plain
// manifests pinned in the version table (no Helm, no operator). Retention and scrape interval come from Magnum's
// labels; data lives on a volume of monitoring_storage_class_name when one is named, else on the node (emptyDir,
// lost with the pod, as in Magnum). Nothing is exposed outside the cluster: `kubectl -n monitoring port-forward
// svc/grafana 3000`, with the admin password of Secret monitoring/grafana-admin.

import { createHmac } from 'node:crypto';
import { bool, imageTag, int, label, type LabelType } from '../../cluster-spec/labels/types.js';
import { defineAddon, ORDER, settingsOf, type K8sObject } from '../../bootstrap/addons/framework.js';
import { meta } from '../../bootstrap/addons/k8s.js';
import { exporterObjects } from './exporters.js';
import { grafanaObjects } from './grafana.js';
import { prometheusObjects } from './prometheus.js';
import { MONITORING_NAMESPACE, type MonitoringSettings } from './settings.js';

export { MONITORING_NAMESPACE, NODE_EXPORTER_PORT, type MonitoringSettings } from './settings.js';

/** A Kubernetes object name (DNS-1123 subdomain), such as a StorageClass's. */
const objectName: LabelType<string> = {
  accepts: 'Kubernetes object name',
  parse(raw) {
    const v = raw.trim();
    if (v.length > 253 || !/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/.test(v)) throw new Error('Expected a Kubernetes object name (lower-case letters, digits, - and .).');
    return v;
  },
};

const TUNING = ['monitoring_retention_days', 'monitoring_retention_size', 'monitoring_interval_seconds', 'monitoring_storage_class_name', 'prometheus_tag', 'grafana_tag'] as const;

export const monitoringAddon = defineAddon({
  key: 'monitoring',
  kind: 'addon',
  name: 'monitoring',
  order: ORDER.monitoring,
  labels: {
    monitoring_enabled: label(bool, 'Install Prometheus (apiservers, kubelets, cAdvisor, node-exporter, kube-state-metrics, annotated Services and pods) and Grafana with it as data source, in namespace monitoring; Grafana: kubectl -n monitoring port-forward svc/grafana 3000, user admin, password in Secret monitoring/grafana-admin. Default false.'),
    prometheus_monitoring: label(bool, "Magnum's deprecated switch of its older stack: true is the same as monitoring_enabled=true.", { deprecated: 'use monitoring_enabled.' }),
    monitoring_retention_days: label(int(1, 3650), 'Prometheus keeps this many days of samples (--storage.tsdb.retention.time). Default 14.', { ignored: 'without monitoring_enabled=true' }),
    monitoring_retention_size: label(int(1, 16384), "GiB: size of Prometheus' volume (or its emptyDir limit); samples are dropped, oldest first, at 90% of it (--storage.tsdb.retention.size), leaving room for the WAL. Default 14.", { ignored: 'without monitoring_enabled=true' }),
    monitoring_interval_seconds: label(int(5, 3600), 'Scrape and rule evaluation interval in seconds. Default 30.', { ignored: 'without monitoring_enabled=true' }),
    monitoring_storage_class_name: label(objectName, "StorageClass of Prometheus' volume (e.g. csi-cinder-sc-delete); '' (default): an emptyDir on the node, lost with the pod, as in Magnum.", { ignored: 'without monitoring_enabled=true' }),
    prometheus_tag: label(imageTag, 'Prometheus image tag (quay.io/prometheus/prometheus); default pinned in the version table (Magnum pinned v1.8.2, which has no Kubernetes discovery of today\'s APIs).', { ignored: 'without monitoring_enabled=true' }),
    grafana_tag: label(imageTag, 'Grafana image tag (docker.io/grafana/grafana); default pinned in the version table.', { ignored: 'without monitoring_enabled=true' }),
  },
  resolve(l, ctx): MonitoringSettings {
    const k = ctx.spec.kubernetes!;
    const enabled = (l.monitoring_enabled ?? false) || (l.prometheus_monitoring ?? false);
    if (!enabled) for (const name of TUNING) if (l[name] !== undefined) ctx.ignore(name);
    const repo = (upstream: string, name: string, tag: string) => `${k.imageRepository || upstream}/${name}:${tag}`;
    return {
      enabled,
      retentionDays: l.monitoring_retention_days ?? 14,
      retentionSizeGiB: l.monitoring_retention_size ?? 14,
      intervalSeconds: l.monitoring_interval_seconds ?? 30,
      storageClass: l.monitoring_storage_class_name || null,
      clusterUuid: ctx.cluster.uuid,
      images: {
        prometheus: repo('quay.io/prometheus', 'prometheus', l.prometheus_tag ?? k.components.prometheus),
        nodeExporter: repo('quay.io/prometheus', 'node-exporter', k.components.nodeExporter),
        kubeStateMetrics: repo('registry.k8s.io/kube-state-metrics', 'kube-state-metrics', k.components.kubeStateMetrics),
        grafana: repo('docker.io/grafana', 'grafana', l.grafana_tag ?? k.components.grafana),
      },
    };
  },
  enabled: (spec) => settingsOf<MonitoringSettings>(spec, 'monitoring').enabled,
  render(spec, ctx): K8sObject[] {
    const s = settingsOf<MonitoringSettings>(spec, 'monitoring');
    return [
      {
        apiVersion: 'v1',
        kind: 'Namespace',
        // node-exporter reads the host (hostNetwork, hostPID, hostPath): the privileged Pod Security level.
        metadata: meta(MONITORING_NAMESPACE, undefined, { 'pod-security.kubernetes.io/enforce': 'privileged' }),
      },
      ...prometheusObjects(s),
      ...exporterObjects(s),
      ...grafanaObjects(s, grafanaPassword(ctx.cloud.credential.applicationCredentialSecret, s.clusterUuid)),
    ];
  },
});

/**
 * Grafana's admin password: derived from the cluster's application-credential secret, so that it is unguessable,
 * never stored by the service, and the same at every apply (a random one would change at each re-apply).
 */
export function grafanaPassword(credentialSecret: string, clusterUuid: string): string {
  return createHmac('sha256', credentialSecret).update(`grafana-admin:${clusterUuid}`).digest('base64url').slice(0, 32);
}
