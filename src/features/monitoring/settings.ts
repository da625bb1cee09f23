// The monitoring add-on's resolved settings and the names its parts share.

export const MONITORING_NAMESPACE = 'monitoring';
/** node-exporter's port on every node (hostNetwork): the network plan opens it between nodes. */
export const NODE_EXPORTER_PORT = 9100;

export interface MonitoringSettings {
  enabled: boolean;
  retentionDays: number;
  retentionSizeGiB: number;
  intervalSeconds: number;
  /** StorageClass of Prometheus' volume, or null for an emptyDir. */
  storageClass: string | null;
  clusterUuid: string;
  images: { prometheus: string; nodeExporter: string; kubeStateMetrics: string; grafana: string };
}
