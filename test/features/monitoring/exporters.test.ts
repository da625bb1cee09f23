// The monitoring add-on's exporters: node-exporter on every node's host network and PID namespace, reading the host
// read-only; kube-state-metrics listing the cluster's objects but never Secrets or ConfigMaps; both found by
// Prometheus through their annotated Services.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exporterObjects } from '../../../src/features/monitoring/exporters.js';
import type { MonitoringSettings } from '../../../src/features/monitoring/settings.js';

const s: MonitoringSettings = { enabled: true, retentionDays: 14, retentionSizeGiB: 14, intervalSeconds: 30, storageClass: null, clusterUuid: 'u', images: { prometheus: 'r/p:1', nodeExporter: 'r/ne:1', kubeStateMetrics: 'r/ksm:1', grafana: 'r/g:1' } };
const objects = exporterObjects(s) as any[];
const of = (kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);

test('node-exporter: every node, host network and PID, no API token, the host mounted read-only, its Service scraped on 9100', () => {
  const pod = of('DaemonSet', 'node-exporter').spec.template.spec;
  assert.deepEqual([pod.hostNetwork, pod.hostPID, pod.automountServiceAccountToken, pod.tolerations], [true, true, false, [{ operator: 'Exists' }]]);
  const c = pod.containers[0];
  assert.equal(c.image, 'r/ne:1');
  assert.ok(c.volumeMounts.every((m: { readOnly: boolean }) => m.readOnly));
  assert.ok(c.args.includes('--web.listen-address=:9100') && c.args.includes('--path.rootfs=/host/root'));
  assert.deepEqual(of('Service', 'node-exporter').metadata.annotations, { 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9100' });
  assert.deepEqual(of('DaemonSet', 'node-exporter').spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '10%' } });
});

test('kube-state-metrics: list and watch on exactly the resources it reports, which are its --resources; scraped on 8080', () => {
  const rules = of('ClusterRole', 'magnum:kube-state-metrics').rules as { apiGroups: string[]; resources: string[]; verbs: string[] }[];
  assert.ok(rules.every((r) => r.verbs.join() === 'list,watch'));
  const granted = rules.flatMap((r) => r.resources).sort();
  const c = of('Deployment', 'kube-state-metrics').spec.template.spec.containers[0];
  assert.equal(c.args[0], `--resources=${granted.join(',')}`);
  assert.ok(!granted.includes('secrets') && !granted.includes('configmaps'));
  assert.deepEqual(of('ClusterRoleBinding', 'magnum:kube-state-metrics').subjects, [{ kind: 'ServiceAccount', name: 'kube-state-metrics', namespace: 'monitoring' }]);
  assert.deepEqual(of('Service', 'kube-state-metrics').metadata.annotations, { 'prometheus.io/scrape': 'true', 'prometheus.io/port': '8080' });
  assert.equal(c.image, 'r/ksm:1');
});
