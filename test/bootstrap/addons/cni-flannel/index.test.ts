// Add-on `cni-flannel` (network_driver=flannel): kube-flannel's objects with the pod CIDR, the per-node subnet
// length and the backend of the network spec; its images from labels, the minor's row or the mirror.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { flannelAddon } from '../../../../src/bootstrap/addons/cni-flannel/index.js';
import { ORDER, renderAddons } from '../../../../src/bootstrap/addons/framework.js';
import { VERSION_MATRIX } from '../../../../src/cluster-spec/versions.js';
import { addon, contextFor, find, rendered } from '../../../support/addons.js';
import { rejects, specOf } from '../../../support/labels.js';

test('cni-flannel: net-conf from the network spec; tags from labels; calico labels ignored', () => {
  const { addons, warnings } = rendered({ network_driver: 'flannel', labels: { flannel_network_cidr: '10.50.0.0/16', flannel_backend: 'wireguard', flannel_network_subnetlen: '26', flannel_tag: 'v0.27.9', calico_tag: 'v3.31.3' } });
  const f = addon(addons, 'cni-flannel');
  const cm = f.objects.find((o) => o.kind === 'ConfigMap') as unknown as { data: Record<string, string> };
  assert.deepEqual(JSON.parse(cm.data['net-conf.json']!), { Network: '10.50.0.0/16', SubnetLen: 26, EnableNFTables: false, Backend: { Type: 'wireguard' } });
  assert.match(JSON.stringify(f.objects), /ghcr\.io\/flannel-io\/flannel:v0\.27\.9/);
  assert.match(warnings.join('\n'), /calico_tag is ignored with network_driver=flannel/);
  const hostGw = addon(rendered({ network_driver: 'flannel', labels: { flannel_backend: 'host-gw' } }).addons, 'cni-flannel');
  assert.match(JSON.stringify(hostGw.objects), /\\"Type\\": \\"host-gw\\"/);
});

test('cni-flannel: its namespace, RBAC, configuration and DaemonSet; the CNI config chains flannel and portmap', () => {
  const f = addon(rendered({ network_driver: 'flannel' }).addons, 'cni-flannel');
  assert.deepEqual(f.objects.map((o) => `${o.kind}/${o.metadata.name}`), ['Namespace/kube-flannel', 'ServiceAccount/flannel', 'ClusterRole/flannel', 'ClusterRoleBinding/flannel', 'ConfigMap/kube-flannel-cfg', 'DaemonSet/kube-flannel-ds']);
  assert.equal(f.objects[0]!.metadata.labels!['pod-security.kubernetes.io/enforce'], 'privileged');
  const cm = find<any>(f, 'ConfigMap', 'kube-flannel-cfg');
  assert.deepEqual(JSON.parse(cm.data['net-conf.json']), { Network: '10.100.0.0/16', SubnetLen: 24, EnableNFTables: false, Backend: { Type: 'vxlan' } });
  assert.deepEqual(JSON.parse(cm.data['cni-conf.json']).plugins.map((p: { type: string }) => p.type), ['flannel', 'portmap']);
  const pod = find<any>(f, 'DaemonSet', 'kube-flannel-ds').spec.template.spec;
  assert.deepEqual(pod.containers[0].args, ['--ip-masq', '--kube-subnet-mgr'], 'node subnets from kube-controller-manager');
  assert.deepEqual(pod.containers[0].securityContext, { privileged: false, capabilities: { add: ['NET_ADMIN', 'NET_RAW'] } });
  assert.deepEqual(pod.tolerations, [{ operator: 'Exists' }], 'on every node, whatever its taints');
  assert.equal(pod.hostNetwork, true);
});

test('cni-flannel: images from the minor\'s row, the tags\' labels, or the mirror; off with calico, whose labels of it warn', () => {
  const images = (labels: Record<string, string>) => {
    const pod = find<any>(addon(rendered({ network_driver: 'flannel', labels }).addons, 'cni-flannel'), 'DaemonSet', 'kube-flannel-ds').spec.template.spec;
    return [pod.initContainers[0].image, pod.initContainers[1].image, pod.containers[0].image];
  };
  const row = VERSION_MATRIX['1.34'];
  assert.deepEqual(images({ kube_tag: 'v1.34.8' }), [`ghcr.io/flannel-io/flannel-cni-plugin:${row.flannelCniPlugin}`, `ghcr.io/flannel-io/flannel:${row.flannel}`, `ghcr.io/flannel-io/flannel:${row.flannel}`]);
  assert.deepEqual(images({ flannel_cni_tag: 'v1.9.0-flannel1', container_infra_prefix: 'mirror.example.org/k8s' }), ['mirror.example.org/k8s/flannel-cni-plugin:v1.9.0-flannel1', `mirror.example.org/k8s/flannel:${VERSION_MATRIX['1.35'].flannel}`, `mirror.example.org/k8s/flannel:${VERSION_MATRIX['1.35'].flannel}`]);
  const calico = rendered({ labels: { flannel_tag: 'v0.27.9', flannel_cni_tag: 'v1.9.0' } });
  assert.ok(!calico.addons.some((a) => a.name === 'cni-flannel'));
  assert.equal(calico.spec.features.cniFlannel, null);
  assert.deepEqual(calico.warnings, ['Label flannel_tag is ignored with network_driver=calico.', 'Label flannel_cni_tag is ignored with network_driver=calico.']);
  rejects({ flannel_tag: 'v0.27.9 ' + 'x' }, 'flannel_tag', /image tag/, { network_driver: 'flannel' });
});

test('cni-flannel: enabled by network_driver alone, in the CNI\'s place of the apply order', () => {
  assert.equal(flannelAddon.order, ORDER.cni);
  assert.equal(flannelAddon.enabled(specOf({ network_driver: 'flannel' })), true);
  assert.equal(flannelAddon.enabled(specOf()), false);
  const spec = specOf({ network_driver: 'flannel' });
  assert.deepEqual(renderAddons([flannelAddon], spec, contextFor(spec)).map((a) => [a.name, a.order]), [['cni-flannel', 30]]);
});
