// The dashboard Grafana starts with: panels over node-exporter, kube-state-metrics and cAdvisor metrics, laid out
// two to a row, each querying the provisioned Prometheus.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clusterDashboard, DASHBOARD_UID } from '../../../src/features/monitoring/dashboard.js';

type Panel = { id: number; type: string; title: string; gridPos: { x: number; y: number; w: number; h: number }; datasource: { uid: string }; targets: { expr: string; datasource: { uid: string } }[] };

test('the cluster dashboard: its uid, a panel per query, ids from 1, two per row without overlap, each on the Prometheus data source', () => {
  const text = clusterDashboard();
  assert.ok(text.endsWith('}\n'));
  const d = JSON.parse(text) as { uid: string; title: string; panels: Panel[] };
  assert.equal(d.uid, DASHBOARD_UID);
  assert.deepEqual(d.panels.map((p) => p.id), d.panels.map((_, i) => i + 1));
  const cells = new Set(d.panels.map((p) => `${p.gridPos.x},${p.gridPos.y}`));
  assert.equal(cells.size, d.panels.length, 'no two panels in one place');
  assert.ok(d.panels.every((p) => p.gridPos.w === 12 && [0, 12].includes(p.gridPos.x)));
  for (const p of d.panels) {
    assert.equal(p.datasource.uid, 'prometheus', p.title);
    assert.equal(p.targets[0]!.datasource.uid, 'prometheus', p.title);
  }
  const exprs = d.panels.map((p) => p.targets[0]!.expr).join('\n');
  for (const source of ['node_cpu_seconds_total', 'kube_pod_status_phase', 'container_memory_working_set_bytes']) assert.ok(exprs.includes(source), source);
});
