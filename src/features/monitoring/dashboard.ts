// The dashboard Grafana starts with (folder Kubernetes): nodes' CPU, memory and disk from node-exporter, pods by
// phase and unavailable replicas from kube-state-metrics, CPU and memory by namespace from cAdvisor. Users add
// their own next to it; this one is rewritten at every apply.

interface Panel {
  title: string;
  expr: string;
  legend: string;
  unit: string;
}

const PANELS: Panel[] = [
  { title: 'Node CPU used', expr: '1 - avg by (instance) (rate(node_cpu_seconds_total{mode="idle"}[5m]))', legend: '{{instance}}', unit: 'percentunit' },
  { title: 'Node memory used', expr: '1 - node_memory_MemAvailable_bytes / node_memory_MemTotal_bytes', legend: '{{instance}}', unit: 'percentunit' },
  { title: 'Node root disk used', expr: '1 - node_filesystem_avail_bytes{mountpoint="/"} / node_filesystem_size_bytes{mountpoint="/"}', legend: '{{instance}}', unit: 'percentunit' },
  { title: 'Pods by phase', expr: 'sum by (phase) (kube_pod_status_phase)', legend: '{{phase}}', unit: 'short' },
  { title: 'Unavailable replicas', expr: 'sum by (namespace, deployment) (kube_deployment_status_replicas_unavailable) > 0', legend: '{{namespace}}/{{deployment}}', unit: 'short' },
  { title: 'CPU by namespace', expr: 'sum by (namespace) (rate(container_cpu_usage_seconds_total{container!=""}[5m]))', legend: '{{namespace}}', unit: 'short' },
  { title: 'Memory by namespace', expr: 'sum by (namespace) (container_memory_working_set_bytes{container!=""})', legend: '{{namespace}}', unit: 'bytes' },
];

export const DASHBOARD_UID = 'magnum-cluster';

export function clusterDashboard(): string {
  const panels = PANELS.map((p, i) => ({
    id: i + 1,
    type: 'timeseries',
    title: p.title,
    datasource: { type: 'prometheus', uid: 'prometheus' },
    gridPos: { x: (i % 2) * 12, y: Math.floor(i / 2) * 8, w: 12, h: 8 },
    fieldConfig: { defaults: { unit: p.unit }, overrides: [] },
    targets: [{ refId: 'A', expr: p.expr, legendFormat: p.legend, datasource: { type: 'prometheus', uid: 'prometheus' } }],
  }));
  return `${JSON.stringify({ uid: DASHBOARD_UID, title: 'Cluster', tags: ['kubernetes'], timezone: 'browser', schemaVersion: 39, refresh: '1m', time: { from: 'now-6h', to: 'now' }, panels }, null, 2)}\n`;
}
