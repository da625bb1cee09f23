// The names and marks of a cluster's cloud resources (src/steps/naming.ts): deterministic, so a create whose
// answer was never recorded finds its resource again; bounded and sanitised as the services and Kubernetes take
// them; the server names the same in every run of an operation and different between operations, groups, indexes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clusterDescription, clusterTag, META, resourceName, ROLES, serverGroupName, serverName } from '../../src/steps/naming.js';

const UUID = '3F0D9C1E-7A51-4A8E-9B55-2F6A9D1C0E42';

test('the tag and the description carry the uuid in lower case', () => {
  assert.equal(clusterTag(UUID), 'magnum-cluster=3f0d9c1e-7a51-4a8e-9b55-2f6a9d1c0e42');
  assert.equal(clusterDescription(UUID), 'Magnum cluster 3f0d9c1e-7a51-4a8e-9b55-2f6a9d1c0e42');
});

test('a resource: magnum-<name sanitised, at most 20>-<uuid8>-<role>; an empty name gives k8s', () => {
  assert.equal(resourceName({ name: 'Prod Cluster_1', uuid: UUID }, 'network'), 'magnum-prod-cluster-1-3f0d9c1e-network');
  assert.equal(resourceName({ name: 'a-very-long-cluster-name-indeed', uuid: UUID }, 'router'), 'magnum-a-very-long-cluster-3f0d9c1e-router');
  assert.equal(resourceName({ name: 'abcdefghijklmnopqrs--tail', uuid: UUID }, 'subnet'), 'magnum-abcdefghijklmnopqrs-3f0d9c1e-subnet', 'no dash left at the cut');
  assert.equal(resourceName({ name: '***', uuid: UUID }, 'kubeapi'), 'magnum-k8s-3f0d9c1e-kubeapi');
  assert.equal(new Set(ROLES.map((r) => resourceName({ name: 'c', uuid: UUID }, r))).size, ROLES.length, 'one name per role');
});

test('a server group: the whole uuid (it takes no tag), at most 255', () => {
  assert.equal(serverGroupName({ uuid: UUID }, 'default-worker'), 'magnum-3f0d9c1e-7a51-4a8e-9b55-2f6a9d1c0e42-default-worker');
  assert.equal(serverGroupName({ uuid: UUID }, 'g'.repeat(300)).length, 255);
});

test('a server: <short>-<group>-<5 chars>, the same for the same operation, group and index; RFC 1123, at most 63', () => {
  const a = serverName('prod-3f0d', 'Default Worker', 'op-1', 'g-1', 0);
  assert.match(a, /^prod-3f0d-default-worker-[a-z0-9]{5}$/);
  assert.equal(serverName('prod-3f0d', 'Default Worker', 'op-1', 'g-1', 0), a);
  const others = [serverName('prod-3f0d', 'Default Worker', 'op-2', 'g-1', 0), serverName('prod-3f0d', 'Default Worker', 'op-1', 'g-2', 0), serverName('prod-3f0d', 'Default Worker', 'op-1', 'g-1', 1)];
  assert.equal(new Set([a, ...others]).size, 4);
  const long = serverName('s'.repeat(40), 'g'.repeat(40), 'op', 'g', 0);
  assert.ok(long.length <= 63 && !long.endsWith('-'));
  assert.match(serverName('c', '---', 'op', 'g', 0), /^c-nodes-[a-z0-9]{5}$/);
});

test('the metadata keys a server carries', () => {
  assert.deepEqual(Object.values(META), ['magnum_cluster', 'magnum_nodegroup', 'magnum_role', 'magnum_kube_version', 'magnum_ca_generation', 'magnum_node_index']);
});
