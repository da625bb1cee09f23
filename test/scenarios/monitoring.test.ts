// Issue 5 item 4 (monitoring, Magnum's monitoring_enabled) through the API and the workers: the cluster's
// security groups open node-exporter's port between nodes only, the stack is applied to the cluster with the
// labels' retention, interval and storage class, Grafana's password is in the cluster and nowhere in the API,
// and the delete leaves nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { api, deleteCluster, leftovers, settled, withHarness, type Harness, type Json } from './lifecycle-support.js';

let h: Harness;
withHarness((x) => {
  h = x;
});

function clusterObject(group: string, resource: string, namespace: string, name: string): Json | undefined {
  for (const c of h.t.cloud!.sims.kube.clusters.values()) {
    const o = c.store.get({ group, resource, namespace, name });
    if (o) return o as Json;
  }
  return undefined;
}

test('monitoring_enabled: the stack is applied with the labels\' settings, node-exporter\'s port is open between nodes only, the password stays in the cluster', async () => {
  const tpl = await api(h, 'POST', '/v1/clustertemplates', {
    name: 'monitored', coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', flavor_id: 'm1.small', master_flavor_id: 'm1.medium',
    master_lb_enabled: true, floating_ip_enabled: true, network_driver: 'calico',
    labels: { kube_tag: 'v1.35.1', monitoring_enabled: 'true', monitoring_retention_days: '7', monitoring_interval_seconds: '20', monitoring_storage_class_name: 'csi-cinder-sc-delete' },
  });
  assert.equal(tpl.status, 201, JSON.stringify(tpl.body));
  const r = await api(h, 'POST', '/v1/clusters', { cluster_template_id: tpl.body.uuid, name: 'mon', master_count: 1, node_count: 2 });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const uuid = r.body.uuid as string;
  await settled(h, uuid, 'CREATE_COMPLETE');

  // The security groups: 9100/tcp from the two node groups, nothing wider.
  const neutron = h.t.cloud!.neutron;
  const groups = [...neutron.securityGroups.values()].filter((g) => g.name.includes('secgroup') && g.description.includes(uuid));
  assert.equal(groups.length, 2);
  const ids = new Set(groups.map((g) => g.id));
  for (const g of groups) {
    const rules = [...neutron.securityGroupRules.values()].filter((x) => x.securityGroupId === g.id && x.portRangeMin === 9100);
    assert.equal(rules.length, 2, `${g.name}: one rule per node group`);
    assert.ok(rules.every((x) => x.protocol === 'tcp' && x.remoteIpPrefix === null && ids.has(x.remoteGroupId!)));
  }

  // The objects in the cluster.
  assert.ok(clusterObject('', 'namespaces', '', 'monitoring'));
  const sts = clusterObject('apps', 'statefulsets', 'monitoring', 'prometheus');
  assert.ok(sts, 'Prometheus was applied');
  assert.equal(sts.spec.volumeClaimTemplates[0].spec.storageClassName, 'csi-cinder-sc-delete');
  assert.ok(sts.spec.template.spec.containers[0].args.includes('--storage.tsdb.retention.time=7d'));
  const config = parse(clusterObject('', 'configmaps', 'monitoring', 'prometheus-config')!.data['prometheus.yml']);
  assert.equal(config.global.scrape_interval, '20s');
  for (const [group, resource, name] of [['apps', 'daemonsets', 'node-exporter'], ['apps', 'deployments', 'kube-state-metrics'], ['apps', 'deployments', 'grafana'], ['', 'services', 'grafana']] as const) {
    assert.ok(clusterObject(group, resource, 'monitoring', name), `${resource}/${name}`);
  }
  const password = Buffer.from(clusterObject('', 'secrets', 'monitoring', 'grafana-admin')!.data['admin-password'], 'base64').toString();
  assert.equal(password.length, 32);
  const shown = await api(h, 'GET', `/v1/clusters/${uuid}`);
  assert.ok(!JSON.stringify(shown.body).includes(password), 'the password is not in the API');

  await deleteCluster(h, uuid);
  assert.deepEqual(leftovers(h).map((x) => `${x.service}:${x.type}:${x.id}`), []);
});
