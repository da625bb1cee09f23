// Grafana of the monitoring add-on: Prometheus provisioned as its default data source at the scrape interval, the
// cluster dashboard from a ConfigMap, the admin credential from a Secret, no API token.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { clusterDashboard } from '../../../src/features/monitoring/dashboard.js';
import { GRAFANA_ADMIN_SECRET, grafanaObjects } from '../../../src/features/monitoring/grafana.js';
import type { MonitoringSettings } from '../../../src/features/monitoring/settings.js';

const s: MonitoringSettings = { enabled: true, retentionDays: 14, retentionSizeGiB: 14, intervalSeconds: 15, storageClass: null, clusterUuid: 'u', images: { prometheus: 'r/p:1', nodeExporter: 'r/ne:1', kubeStateMetrics: 'r/ksm:1', grafana: 'r/g:1' } };
const objects = grafanaObjects(s, 'pw-123') as any[];
const of = (kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);

test('the data source: the in-cluster Prometheus, default, at the scrape interval; the dashboards from their folder', () => {
  const ds = parse(of('ConfigMap', 'grafana-datasources').data['prometheus.yaml']);
  assert.deepEqual(ds.datasources, [{ name: 'Prometheus', uid: 'prometheus', type: 'prometheus', access: 'proxy', url: 'http://prometheus.monitoring.svc:9090', isDefault: true, jsonData: { timeInterval: '15s' } }]);
  assert.equal(parse(of('ConfigMap', 'grafana-dashboard-providers').data['dashboards.yaml']).providers[0].folder, 'Kubernetes');
  assert.equal(of('ConfigMap', 'grafana-dashboards').data['cluster.json'], clusterDashboard());
});

test('the admin credential comes from its Secret; the pod runs restricted, without a token, its writable folders emptyDirs', () => {
  const secret = of('Secret', GRAFANA_ADMIN_SECRET);
  assert.deepEqual(Object.fromEntries(Object.entries(secret.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()])), { 'admin-user': 'admin', 'admin-password': 'pw-123' });
  const pod = of('Deployment', 'grafana').spec.template.spec;
  const env = pod.containers[0].env as { name: string; value?: string; valueFrom?: { secretKeyRef: { name: string; key: string } } }[];
  assert.deepEqual(env.filter((e) => e.valueFrom).map((e) => [e.name, e.valueFrom!.secretKeyRef.name, e.valueFrom!.secretKeyRef.key]), [['GF_SECURITY_ADMIN_USER', GRAFANA_ADMIN_SECRET, 'admin-user'], ['GF_SECURITY_ADMIN_PASSWORD', GRAFANA_ADMIN_SECRET, 'admin-password']]);
  assert.ok(!JSON.stringify(pod).includes('pw-123'), 'the password is only in the Secret');
  assert.equal(pod.automountServiceAccountToken, false);
  assert.equal(pod.containers[0].securityContext.readOnlyRootFilesystem, true);
  assert.deepEqual(pod.volumes.filter((v: { emptyDir?: unknown }) => v.emptyDir).map((v: { name: string }) => v.name), ['data', 'logs', 'tmp']);
  assert.deepEqual(of('Service', 'grafana').spec.ports, [{ name: 'http', port: 3000, targetPort: 3000, protocol: 'TCP' }]);
});
