// Prometheus of the monitoring add-on: its configuration (the apiservers, kubelets and cAdvisor, annotated Services
// and pods), its rights, and its StatefulSet (retention, volume or emptyDir, a pod that rolls with its configuration).
/* eslint-disable @typescript-eslint/no-explicit-any */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { prometheusConfig, prometheusObjects } from '../../../src/features/monitoring/prometheus.js';
import type { MonitoringSettings } from '../../../src/features/monitoring/settings.js';

const settings = (over: Partial<MonitoringSettings> = {}): MonitoringSettings => ({ enabled: true, retentionDays: 7, retentionSizeGiB: 10, intervalSeconds: 20, storageClass: null, clusterUuid: 'the-uuid', images: { prometheus: 'r/p:1', nodeExporter: 'r/ne:1', kubeStateMetrics: 'r/ksm:1', grafana: 'r/g:1' }, ...over });
const of = (objects: any[], kind: string) => objects.find((o) => o.kind === kind);

test('the configuration: the interval for scrapes and rules, the cluster as external label; kubelets over HTTPS with the pod\'s token', () => {
  const c = parse(prometheusConfig(settings()));
  assert.deepEqual(c.global, { scrape_interval: '20s', evaluation_interval: '20s', external_labels: { cluster: 'the-uuid' } });
  const jobs = Object.fromEntries(c.scrape_configs.map((j: { job_name: string }) => [j.job_name, j]));
  assert.deepEqual(jobs['kubernetes-apiservers'].relabel_configs[0].regex, 'kubernetes;https');
  assert.equal(jobs['kubernetes-cadvisor'].metrics_path, '/metrics/cadvisor');
  assert.equal(jobs['kubernetes-nodes'].metrics_path, undefined);
  for (const j of ['kubernetes-apiservers', 'kubernetes-nodes', 'kubernetes-cadvisor']) {
    assert.deepEqual(jobs[j].authorization, { type: 'Bearer', credentials_file: '/var/run/secrets/kubernetes.io/serviceaccount/token' }, j);
  }
});

test('annotated Services and pods: kept on prometheus.io/scrape=true, scheme, path and port from their annotations', () => {
  const c = parse(prometheusConfig(settings()));
  const pods = c.scrape_configs.find((j: { job_name: string }) => j.job_name === 'kubernetes-pods');
  assert.deepEqual(pods.kubernetes_sd_configs, [{ role: 'pod' }]);
  const [keep, scheme, path, port] = pods.relabel_configs;
  assert.deepEqual(keep, { source_labels: ['__meta_kubernetes_pod_annotation_prometheus_io_scrape'], action: 'keep', regex: 'true' });
  assert.equal(scheme.target_label, '__scheme__');
  assert.equal(path.target_label, '__metrics_path__');
  // The port relabelling as Prometheus applies it: source labels joined by ';', the regex anchored.
  const re = new RegExp(`^(?:${port.regex})$`);
  assert.equal('10.100.1.5:8080;9102'.replace(re, port.replacement.replace(/\$(\d)/g, '$$$1')), '10.100.1.5:9102');
  assert.equal('10.100.1.5;9102'.replace(re, port.replacement.replace(/\$(\d)/g, '$$$1')), '10.100.1.5:9102');
});

test('the StatefulSet: retention by time and by 90% of the size, an emptyDir of that size or a claim of the named class; the config\'s checksum on the pod', () => {
  const onNode = prometheusObjects(settings());
  const sts = of(onNode, 'StatefulSet');
  const args: string[] = sts.spec.template.spec.containers[0].args;
  assert.ok(args.includes('--storage.tsdb.retention.time=7d') && args.includes(`--storage.tsdb.retention.size=${Math.floor(10 * 1024 * 0.9)}MB`));
  assert.deepEqual(sts.spec.template.spec.volumes.find((v: { name: string }) => v.name === 'data'), { name: 'data', emptyDir: { sizeLimit: '10Gi' } });
  const claimed = of(prometheusObjects(settings({ storageClass: 'fast' })), 'StatefulSet');
  assert.equal(claimed.spec.volumeClaimTemplates[0].spec.storageClassName, 'fast');
  const checksum = (s: MonitoringSettings) => of(prometheusObjects(s), 'StatefulSet').spec.template.metadata.annotations['checksum/config'];
  assert.equal(checksum(settings()), checksum(settings({ retentionDays: 30 })), 'retention is a flag, not the configuration');
  assert.notEqual(checksum(settings()), checksum(settings({ intervalSeconds: 60 })));
  assert.deepEqual(sts.spec.template.metadata.labels, sts.spec.selector.matchLabels, 'the annotation kept its labels');
});

test('its rights: read nodes (and their metrics), Services, endpoints and pods, and /metrics; nothing else', () => {
  const role = of(prometheusObjects(settings()), 'ClusterRole');
  assert.equal(role.metadata.name, 'magnum:prometheus');
  const verbs = new Set(role.rules.flatMap((r: { verbs: string[] }) => r.verbs));
  assert.deepEqual([...verbs].sort(), ['get', 'list', 'watch']);
  assert.deepEqual(role.rules.at(-1), { nonResourceURLs: ['/metrics'], verbs: ['get'] });
  assert.ok(!JSON.stringify(role.rules).includes('secrets'));
});
