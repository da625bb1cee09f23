// Add-on `monitoring` (Magnum's monitoring_enabled): Prometheus, node-exporter, kube-state-metrics and Grafana in
// namespace monitoring, with Magnum's retention, interval and storage labels; Grafana's password derived, never a label.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { InvalidLabelError } from '../../../src/domain/errors.js';
import { renderAddons } from '../../../src/bootstrap/addons/framework.js';
import { addons as allAddons } from '../../../src/bootstrap/addons/index.js';
import { grafanaPassword, type MonitoringSettings } from '../../../src/features/monitoring/addon.js';
import { parseClusterSpec } from '../../../src/cluster-spec/parse.js';
import { addon, contextFor, rendered } from '../../support/addons.js';
import { validateObject } from '../../support/k8s-validate.js';
import { rejects, specOf } from '../../support/labels.js';
import { input, UUID } from '../../support/spec-fixtures.js';

test('monitoring: Prometheus with Magnum\'s retention and interval labels, a volume of the named class, the scrape jobs, exporters and Grafana; off by default', () => {
  const labels = { monitoring_enabled: 'true', monitoring_retention_days: '30', monitoring_retention_size: '50', monitoring_interval_seconds: '15', monitoring_storage_class_name: 'csi-cinder-sc-delete', prometheus_tag: 'v3.6.0' };
  const { spec, addons, warnings } = rendered({ labels });
  assert.deepEqual(warnings, []);
  const a = addon(addons, 'monitoring');
  assert.equal(a.objects[0]!.kind, 'Namespace', 'the namespace comes first');
  for (const o of a.objects) validateObject(o);
  const sts = a.objects.find((o) => o.kind === 'StatefulSet')! as any;
  const c = sts.spec.template.spec.containers[0];
  assert.equal(c.image, 'quay.io/prometheus/prometheus:v3.6.0');
  assert.ok(c.args.includes('--storage.tsdb.retention.time=30d'));
  assert.ok(c.args.includes(`--storage.tsdb.retention.size=${Math.floor(50 * 1024 * 0.9)}MB`), 'samples dropped at 90% of the volume');
  assert.deepEqual(sts.spec.volumeClaimTemplates[0].spec, { accessModes: ['ReadWriteOnce'], storageClassName: 'csi-cinder-sc-delete', resources: { requests: { storage: '50Gi' } } });
  assert.ok(!sts.spec.template.spec.volumes.some((v: { name: string }) => v.name === 'data'), 'no emptyDir beside the claim');
  const config = parse((a.objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'prometheus-config') as any).data['prometheus.yml']);
  assert.equal(config.global.scrape_interval, '15s');
  assert.equal(config.global.external_labels.cluster, UUID);
  assert.deepEqual(config.scrape_configs.map((j: { job_name: string }) => j.job_name), ['kubernetes-apiservers', 'kubernetes-nodes', 'kubernetes-cadvisor', 'kubernetes-service-endpoints', 'kubernetes-pods']);
  assert.match(sts.spec.template.metadata.annotations['checksum/config'], /^[0-9a-f]{64}$/, 'a changed configuration rolls the pod');
  // Exporters are found through their annotated Services.
  for (const name of ['node-exporter', 'kube-state-metrics']) {
    const svc = a.objects.find((o) => o.kind === 'Service' && o.metadata.name === name)!;
    assert.equal(svc.metadata.annotations!['prometheus.io/scrape'], 'true', name);
  }
  const ksm = a.objects.find((o) => o.kind === 'ClusterRole' && o.metadata.name === 'magnum:kube-state-metrics') as any;
  assert.ok(!ksm.rules.some((r: { resources: string[] }) => r.resources.includes('secrets') || r.resources.includes('configmaps')), 'kube-state-metrics reads no Secrets');
  // Grafana starts with the cluster dashboard; its queries use metrics of the scraped exporters and cAdvisor.
  const dash = JSON.parse((a.objects.find((o) => o.metadata.name === 'grafana-dashboards') as any).data['cluster.json']);
  assert.ok(dash.panels.length >= 6);
  for (const p of dash.panels) assert.match(p.targets[0].expr, /\b(node_|kube_|container_)\w+/, p.title);
  assert.match((a.objects.find((o) => o.metadata.name === 'grafana-dashboard-providers') as any).data['dashboards.yaml'], /path: \/var\/lib\/grafana-dashboards/);
  // Grafana: password in a Secret, derived from the credential (stable across applies), never a label.
  const secret = a.objects.find((o) => o.kind === 'Secret' && o.metadata.name === 'grafana-admin') as any;
  const password = Buffer.from(secret.data['admin-password'], 'base64').toString();
  assert.match(password, /^[A-Za-z0-9_-]{32}$/);
  assert.equal(password, Buffer.from((addon(rendered({ labels }).addons, 'monitoring').objects.find((o) => o.metadata.name === 'grafana-admin') as any).data['admin-password'], 'base64').toString());
  const other = renderAddons(allAddons(), spec, { cloud: { ...contextFor(spec).cloud, credential: { ...contextFor(spec).cloud.credential, applicationCredentialSecret: 'other' } } });
  assert.notEqual(Buffer.from((addon(other, 'monitoring').objects.find((o) => o.metadata.name === 'grafana-admin') as any).data['admin-password'], 'base64').toString(), password);
  // Defaults: 14 days, 14 GiB on an emptyDir, 30 s.
  const d = addon(rendered({ labels: { prometheus_monitoring: 'true' } }).addons, 'monitoring');
  const ds = (d.objects.find((o) => o.kind === 'StatefulSet') as any).spec;
  assert.equal(ds.volumeClaimTemplates, undefined);
  assert.deepEqual(ds.template.spec.volumes.find((v: { name: string }) => v.name === 'data'), { name: 'data', emptyDir: { sizeLimit: '14Gi' } });
  assert.ok(ds.template.spec.containers[0].args.includes('--storage.tsdb.retention.time=14d'));
  // Off by default; tuning without the switch is a warning; bad values are 400s naming the label.
  const off = rendered({ labels: { monitoring_retention_days: '3' } });
  assert.ok(!off.addons.some((x) => x.name === 'monitoring'));
  assert.ok(off.warnings.some((w) => /monitoring_retention_days is ignored without monitoring_enabled=true/.test(w)));
  for (const [label, value] of [['monitoring_retention_days', '0'], ['monitoring_interval_seconds', 'often'], ['monitoring_storage_class_name', 'Not_A_Name'], ['monitoring_enabled', 'perhaps']] as const) {
    assert.throws(() => parseClusterSpec(input({ labels: { [label]: value } })), (e: unknown) => e instanceof InvalidLabelError && e.label === label, label);
  }
  // grafana_admin_passwd is not taken (and its value never echoed in the warning).
  const pw = rendered({ labels: { monitoring_enabled: 'true', grafana_admin_passwd: 'hunter2hunter2' } });
  assert.ok(pw.warnings.some((w) => /grafana_admin_passwd/.test(w)));
  assert.ok(!pw.warnings.some((w) => w.includes('hunter2')));
  assert.ok(!JSON.stringify(addon(pw.addons, 'monitoring').objects).includes(Buffer.from('hunter2hunter2').toString('base64')));
});

test('monitoring settings: the defaults; images of the version table, the tags\' labels or the mirror', () => {
  const s = specOf({ labels: { monitoring_enabled: 'true' } }).features.monitoring as MonitoringSettings;
  const row = specOf().kubernetes.components;
  assert.deepEqual(s, {
    enabled: true, retentionDays: 14, retentionSizeGiB: 14, intervalSeconds: 30, storageClass: null, clusterUuid: UUID,
    images: { prometheus: `quay.io/prometheus/prometheus:${row.prometheus}`, nodeExporter: `quay.io/prometheus/node-exporter:${row.nodeExporter}`, kubeStateMetrics: `registry.k8s.io/kube-state-metrics/kube-state-metrics:${row.kubeStateMetrics}`, grafana: `docker.io/grafana/grafana:${row.grafana}` },
  });
  const tuned = specOf({ labels: { monitoring_enabled: 'true', grafana_tag: '12.2.0', container_infra_prefix: 'mirror.example.org/k8s' } }).features.monitoring as MonitoringSettings;
  assert.deepEqual([tuned.images.grafana, tuned.images.nodeExporter, tuned.storageClass], ['mirror.example.org/k8s/grafana:12.2.0', `mirror.example.org/k8s/node-exporter:${row.nodeExporter}`, null]);
  rejects({ monitoring_interval_seconds: '4' }, 'monitoring_interval_seconds', /between 5 and 3600/);
  rejects({ monitoring_retention_size: '16385' }, 'monitoring_retention_size', /between 1 and 16384/);
  rejects({ monitoring_storage_class_name: 'x'.repeat(254) }, 'monitoring_storage_class_name', /Kubernetes object name/);
});

test('monitoring objects: its privileged namespace first, then Prometheus\', the exporters\' and Grafana\'s, all in it', () => {
  const a = addon(rendered({ labels: { monitoring_enabled: 'true' } }).addons, 'monitoring');
  assert.deepEqual([a.objects[0]!.metadata.name, a.objects[0]!.metadata.labels!['pod-security.kubernetes.io/enforce']], ['monitoring', 'privileged']);
  const namespaced = a.objects.filter((o) => !['Namespace', 'ClusterRole', 'ClusterRoleBinding'].includes(o.kind));
  assert.ok(namespaced.every((o) => o.metadata.namespace === 'monitoring'));
  assert.deepEqual(a.objects.filter((o) => /^(StatefulSet|DaemonSet|Deployment)$/.test(o.kind)).map((o) => o.metadata.name), ['prometheus', 'node-exporter', 'kube-state-metrics', 'grafana']);
});

test('grafanaPassword: 32 URL-safe characters, a function of the credential secret and the cluster', () => {
  const p = grafanaPassword('secret', UUID);
  assert.match(p, /^[A-Za-z0-9_-]{32}$/);
  assert.equal(p, grafanaPassword('secret', UUID));
  assert.notEqual(p, grafanaPassword('secret', '00000000-0000-4000-8000-000000000000'));
  assert.notEqual(p, grafanaPassword('other', UUID));
});
