// The labels and taints a node group's Nodes register with: the group's identity and its node_labels and
// node_taints, refused before any server boots when the kubelet or Kubernetes' controllers would not have them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groupNodeLabels, labelValue, NODEGROUP_LABEL, nodeLabelProblem, nodeTaintProblem, ROLE_LABEL, userNodeLabelProblem } from '../../src/cluster-spec/node-labels.js';

test('which node_labels and node_taints a user may ask for', () => {
  assert.equal(userNodeLabelProblem('example.org/tier'), undefined);
  assert.equal(userNodeLabelProblem('node.kubernetes.io/pool'), undefined);
  assert.equal(userNodeLabelProblem('topology.kubernetes.io/zone'), undefined);
  assert.match(userNodeLabelProblem('node-role.kubernetes.io/worker')!, /kubelet may set only/);
  assert.match(userNodeLabelProblem('kubernetes.io/role')!, /kubelet may set only/);
  assert.match(userNodeLabelProblem('magnum.openstack.org/nodegroup')!, /set by the service/);
  assert.equal(nodeTaintProblem('example.org/gpu'), undefined);
  assert.match(nodeTaintProblem('node.cloudprovider.kubernetes.io/uninitialized')!, /controllers manage/);
});

test('the kubelet\'s own label namespaces: the well-known labels and kubelet.kubernetes.io, node.kubernetes.io (and their subdomains)', () => {
  for (const key of ['kubernetes.io/hostname', 'topology.kubernetes.io/region', 'kubelet.kubernetes.io/x', 'foo.node.kubernetes.io/bar', 'example.org/a', 'plain']) {
    assert.equal(nodeLabelProblem(key), undefined, key);
  }
  for (const key of ['kubernetes.io/role', 'k8s.io/x', 'sub.k8s.io/x', 'node-role.kubernetes.io/worker', 'topology.kubernetes.io/rack']) {
    assert.match(nodeLabelProblem(key)!, /^is in the [a-z0-9.-]+ namespace, where a kubelet may set only kubelet\.kubernetes\.io\/\*, node\.kubernetes\.io\/\*/, key);
  }
  assert.equal(nodeLabelProblem(ROLE_LABEL), undefined, 'the kubelet may set it');
  assert.match(userNodeLabelProblem(ROLE_LABEL)!, /set by the service/, 'but a user may not');
  assert.equal(nodeTaintProblem('sub.node.kubernetes.io/x'), undefined, 'taint namespaces are matched exactly');
});

test('a group\'s identity as label values; its node_labels after them', () => {
  // a name that is a label value stays; any other is bounded and gets a digest (one to one: node-group-label-values.test.ts)
  assert.equal(labelValue('gpu-pool-1'), 'gpu-pool-1');
  assert.match(labelValue('gpu pool #1'), /^gpu-pool-1-[0-9a-f]{10}$/);
  assert.match(labelValue('--x--'), /^x-[0-9a-f]{10}$/);
  assert.ok(labelValue('a'.repeat(70)).length <= 63);
  assert.deepEqual(groupNodeLabels({ name: 'default-worker', role: 'worker' }, null), { [NODEGROUP_LABEL]: 'default-worker', [ROLE_LABEL]: 'worker' });
  assert.deepEqual(Object.keys(groupNodeLabels({ name: 'g', role: 'worker' }, { 'example.org/z': '1' })), [NODEGROUP_LABEL, ROLE_LABEL, 'example.org/z']);
});
