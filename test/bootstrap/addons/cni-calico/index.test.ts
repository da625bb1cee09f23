// Add-on `cni-calico` (network_driver=calico): the tigera-operator, then the Installation it reconciles with the
// pod CIDR, the encapsulation of calico_ipv4pool_ipip and a mirror's registry and path.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InvalidLabelError } from '../../../../src/domain/errors.js';
import { CALICO_RELEASES } from '../../../../src/bootstrap/addons/cni-calico/index.js';
import { parseClusterSpec } from '../../../../src/cluster-spec/parse.js';
import { addon, rendered } from '../../../support/addons.js';
import { input } from '../../../support/spec-fixtures.js';

test('cni-calico: tigera-operator + Installation with the pod CIDR and IP-in-IP mode; mirror and calico_tag', () => {
  const enc = (labels: Record<string, string>) => {
    const inst = addon(rendered({ labels }).addons, 'cni-calico').objects.find((o) => o.kind === 'Installation')!;
    return (inst.spec as any).calicoNetwork.ipPools[0];
  };
  assert.deepEqual([enc({}).encapsulation, enc({ calico_ipv4pool_ipip: 'Always' }).encapsulation, enc({ calico_ipv4pool_ipip: 'CrossSubnet' }).encapsulation], ['None', 'IPIP', 'IPIPCrossSubnet']);
  assert.equal(enc({ calico_ipv4pool: '172.20.0.0/16' }).cidr, '172.20.0.0/16');
  const mirrored = addon(rendered({ labels: { container_infra_prefix: 'mirror.example.org/k8s' } }).addons, 'cni-calico');
  const inst = mirrored.objects.find((o) => o.kind === 'Installation')!.spec as { registry: string; imagePath: string };
  assert.deepEqual([inst.registry, inst.imagePath], ['mirror.example.org/', 'k8s']);
  assert.match(JSON.stringify(mirrored.objects), /"mirror\.example\.org\/k8s\/operator:v1\.40\.3"/);
  const op = mirrored.objects.find((o) => o.kind === 'Deployment')!;
  assert.ok((op.spec as any).template.spec.containers[0].args.includes('-manage-crds=true'));
  assert.throws(() => parseClusterSpec(input({ labels: { calico_tag: 'v3.21.2' } })), (e: unknown) => e instanceof InvalidLabelError && e.label === 'calico_tag');
});

test('cni-calico: the operator\'s objects first, the Installation last: Calico CNI and IPAM, BGP, /26 blocks, NAT out, node addresses from Kubernetes', () => {
  const c = addon(rendered().addons, 'cni-calico');
  assert.deepEqual(c.objects.map((o) => o.kind), ['Namespace', 'ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Deployment', 'Installation']);
  const spec = c.objects.at(-1)!.spec as any;
  assert.equal(c.objects.at(-1)!.metadata.namespace, undefined, 'cluster-scoped');
  assert.deepEqual(spec.cni, { type: 'Calico', ipam: { type: 'Calico' } });
  assert.equal(spec.calicoNetwork.bgp, 'Enabled');
  assert.deepEqual(spec.calicoNetwork.ipPools, [{ name: 'default-ipv4-ippool', cidr: '10.100.0.0/16', blockSize: 26, encapsulation: 'None', natOutgoing: 'Enabled', nodeSelector: 'all()' }]);
  assert.deepEqual(spec.calicoNetwork.nodeAddressAutodetectionV4, { kubernetes: 'NodeInternalIP' });
  assert.equal(spec.registry, undefined, 'upstream registries without a mirror');
  assert.match(JSON.stringify(c.objects), /"quay\.io\/tigera\/operator:v1\.40\.3"/);
});

test('cni-calico settings: the release picks its operator; a mirror without a path is a registry alone; off with flannel', () => {
  const s = rendered({ labels: { calico_tag: 'v3.31.3', container_infra_prefix: 'mirror.example.org:5000' } }).spec.features.cniCalico;
  assert.deepEqual(s, { calicoVersion: 'v3.31.3', operatorImage: `mirror.example.org:5000/operator:${CALICO_RELEASES['v3.31.3']}`, mirror: { registry: 'mirror.example.org:5000/', imagePath: '' } });
  const inst = addon(rendered({ labels: { container_infra_prefix: 'mirror.example.org:5000' } }).addons, 'cni-calico').objects.at(-1)!.spec as any;
  assert.deepEqual([inst.registry, 'imagePath' in inst], ['mirror.example.org:5000/', false]);
  const flannel = rendered({ network_driver: 'flannel' });
  assert.equal(flannel.spec.features.cniCalico, null);
  assert.ok(!flannel.addons.some((a) => a.name === 'cni-calico'));
});
