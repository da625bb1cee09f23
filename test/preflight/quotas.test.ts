// The units of the quota bill (src/preflight/quotas.ts): every quota by the service that keeps it, usages
// added (the members of a server group the largest group's, not a sum), and what nodes of a group cost:
// servers, vCPUs, RAM, their boot, etcd and runtime volumes, floating IPs when the cluster gives them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addUsage, masterCount, nodeCount, nodesUsage, PER_OBJECT, QUOTA_NAMES, QUOTAS, roleNodes, zero, type GroupShape } from '../../src/preflight/quotas.js';
import { specOf, templateRow } from '../support/rows.js';

const workers: GroupShape = { name: 'default-worker', role: 'worker', count: 3, flavor: { vcpus: 2, ram: 4096 }, runtimeVolumeGb: 20 };
const masters: GroupShape = { name: 'default-master', role: 'master', count: 3, flavor: { vcpus: 4, ram: 8192 }, runtimeVolumeGb: null };

test('every quota is kept by one service; zero has every quota at 0; two are per object', () => {
  assert.equal(QUOTAS.instances, 'compute');
  assert.equal(QUOTAS.gigabytes, 'block-storage');
  assert.equal(QUOTAS.load_balancer, 'load-balancer');
  assert.equal(QUOTAS.clusters, 'container-infra');
  const z = zero();
  assert.deepEqual(Object.keys(z), QUOTA_NAMES);
  assert.ok(Object.values(z).every((v) => v === 0));
  assert.deepEqual([...PER_OBJECT].sort(), ['server_group_members', 'zone_recordsets']);
});

test('addUsage sums, but a server group’s members are the largest group’s size; records of the zone sum', () => {
  const u = zero();
  addUsage(u, { instances: 3, server_group_members: 3, zone_recordsets: 1 });
  addUsage(u, { instances: 2, server_group_members: 2, zone_recordsets: 1 });
  assert.deepEqual([u.instances, u.server_group_members, u.zone_recordsets], [5, 3, 2]);
});

test('nodes of a group: servers, cores, RAM; the runtime volume each; floating IPs when the cluster gives them', () => {
  const spec = specOf();
  assert.deepEqual(nodesUsage(spec, workers, 3), { instances: 3, cores: 6, ram: 12288, volumes: 3, gigabytes: 60, floatingip: 3 });
  assert.deepEqual(nodesUsage(spec, workers, 0), {});
  const noFip = specOf({}, templateRow({ floating_ip_enabled: false }));
  assert.equal(nodesUsage(noFip, workers, 2).floatingip, 0);
});

test('boot volumes for every node, etcd volumes for control planes only', () => {
  const spec = specOf({ boot_volume_size: '30', etcd_volume_size: '10' });
  assert.deepEqual(nodesUsage(spec, masters, 3), { instances: 3, cores: 12, ram: 24576, volumes: 6, gigabytes: 120, floatingip: 3 });
  assert.deepEqual([nodesUsage(spec, workers, 1).volumes, nodesUsage(spec, workers, 1).gigabytes], [2, 50]);
});

test('roleNodes sums the groups of a role; masterCount and nodeCount', () => {
  const spec = specOf();
  const input = { spec, groups: [masters, workers, { ...workers, name: 'pool', count: 1, runtimeVolumeGb: null }] };
  const w = roleNodes(input, 'worker');
  assert.deepEqual([w.instances, w.cores, w.volumes], [4, 8, 3]);
  assert.equal(roleNodes(input, 'master').instances, 3);
  assert.equal(masterCount(input.groups), 3);
  assert.equal(nodeCount(input.groups), 7);
});
