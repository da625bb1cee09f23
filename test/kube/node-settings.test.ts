// What a node's image, its group and the cluster's volumes change in its user-data: the node image
// contract (which images, what they must carry), installing at boot or not, Node labels and taints,
// the container runtime volume; and the console findings the worker reads back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse, parseAllDocuments } from 'yaml';
import type { UserDataInput } from '../../src/bootstrap/user-data/inputs.js';
import { shq } from '../../src/bootstrap/user-data/install.js';
import { renderUserData } from '../../src/bootstrap/user-data/userdata.js';
import { bootFinding, isBootFailureReason } from '../../src/bootstrap/console.js';
import { imageProblem, imageVersionProblem, nodeImage, type NodeImage } from '../../src/cluster-spec/image.js';
import { groupNodeLabels, userNodeLabelProblem, nodeTaintProblem } from '../../src/cluster-spec/node-labels.js';
import { parseClusterSpec } from '../../src/cluster-spec/parse.js';
import { input, pki, TOKEN } from './fixtures.js';
import { bootstrapScriptOf, cloudConfigFiles } from './node-files.js';

const common = { endpoint: { address: '10.0.0.10' }, bootstrapToken: TOKEN };
const worker = (over: Partial<UserDataInput> = {}, labels: Record<string, string> = {}) => {
  const { spec } = parseClusterSpec(input({ labels: { kube_tag: 'v1.35.2', ...labels } }));
  return renderUserData(spec, { ...common, role: 'worker', nodeName: 'k1-5d12f-worker-b0000', caCert: pki.ca.cert, ...over } as UserDataInput);
};
const joinConfig = (text: string) => parseAllDocuments(cloudConfigFiles(text).get('/etc/kubernetes/kubeadm/config.yaml')!.content).map((d) => d.toJS())[0];

test('the contract: os_distro ubuntu (22.04 on) or fedora-coreos, kube_version a release; the version must be kube_tag\'s', () => {
  assert.deepEqual(nodeImage({ os_distro: 'ubuntu', os_version: '24.04', kube_version: '1.35.5' }), { distro: 'ubuntu', kubeVersion: 'v1.35.5' });
  assert.deepEqual(nodeImage({ os_distro: 'fedora-coreos', kube_version: 'v1.36.1-1.1' }), { distro: 'fedora-coreos', kubeVersion: 'v1.36.1' });
  assert.equal(imageProblem({ os_distro: 'ubuntu', os_version: '22.04' }), undefined);
  assert.match(imageProblem({ os_distro: 'ubuntu', os_version: '20.04' })!, /cgroup v1/);
  assert.match(imageProblem({ os_distro: 'debian' })!, /os_distro is 'debian'; nodes boot from images with os_distro ubuntu \(cloud-init\) or fedora-coreos \(Ignition\)/);
  assert.match(imageProblem({})!, /no os_distro property/);
  assert.match(imageProblem({ os_distro: 'ubuntu', kube_version: 'stable' })!, /not a Kubernetes release/);
  assert.equal(imageVersionProblem({ distro: 'ubuntu', kubeVersion: null }, 'v1.35.5'), undefined, 'an image that says nothing fits any version');
  assert.equal(imageVersionProblem({ distro: 'ubuntu', kubeVersion: 'v1.35.5' }, 'v1.35.5'), undefined);
  assert.match(imageVersionProblem({ distro: 'ubuntu', kubeVersion: 'v1.35.4' }, 'v1.35.5')!, /carries Kubernetes v1\.35\.4 .* kube_tag is v1\.35\.5/);
});

test('a stock Ubuntu image installs the exact version from pkgs.k8s.io and containerd 2.x from its release, checked against the published sha256', () => {
  const script = bootstrapScriptOf(worker());
  assert.match(script, /https:\/\/pkgs\.k8s\.io\/core:\/stable:\/v1\.35\/deb\//);
  assert.match(script, /kubelet=1\.35\.2-1\.1 kubeadm=1\.35\.2-1\.1 kubectl=1\.35\.2-1\.1/);
  assert.match(script, /containerd\/releases\/download\/v2\.2\.1\/containerd-2\.2\.1-linux-\$\{arch\}\.tar\.gz/);
  assert.match(script, /sha256sum --check/);
  assert.match(script, /have_containerd \|\| install_containerd\nif ! have_kubernetes \|\| \[ "\$\(kubeadm version -o short\)" != 'v1\.35\.2' \]; then install_kubernetes; fi/);
  assert.ok(cloudConfigFiles(worker()).has('/usr/local/lib/magnum/containerd.service'));
});

test('Fedora CoreOS installs the release binaries, crictl and the CNI plugins, with its kubelet unit', () => {
  const script = bootstrapScriptOf(worker({ image: { distro: 'fedora-coreos', kubeVersion: null } }));
  assert.match(script, /https:\/\/dl\.k8s\.io\/release\/v1\.35\.2\/bin\/linux\/\$\{arch\}/);
  assert.match(script, /cri-tools\/releases\/download\/v1\.35\.0\/crictl-v1\.35\.0-linux-\$\{arch\}\.tar\.gz/);
  assert.match(script, /containernetworking\/plugins\/releases\/download\/v1\.7\.1\//);
  assert.match(script, /install -m 0644 \/usr\/local\/lib\/magnum\/kubelet\.service \/etc\/systemd\/system\/kubelet\.service/);
  assert.match(script, /setenforce 0/);
  assert.match(script, /169\.254\.169\.254\/openstack\/latest\/meta_data\.json/, 'no cloud-init to ask the instance id');
});

test('a prebuilt image (kube_version) and a disabled install: nothing is downloaded, a missing kubeadm fails naming why', () => {
  for (const [image, labels, why] of [
    [{ distro: 'ubuntu', kubeVersion: 'v1.35.2' }, {}, 'the image says it carries Kubernetes v1.35.2 (property kube_version) but has'],
    [{ distro: 'ubuntu', kubeVersion: null }, { kube_install_at_boot: 'false' }, 'installing at boot is disabled (label kube_install_at_boot=false) and the image has'],
    [{ distro: 'fedora-coreos', kubeVersion: null }, { kube_install_at_boot: 'false' }, 'installing at boot is disabled (label kube_install_at_boot=false) and the image has'],
  ] as [NodeImage, Record<string, string>, string][]) {
    const script = bootstrapScriptOf(worker({ image }, labels));
    assert.doesNotMatch(script, /pkgs\.k8s\.io|dl\.k8s\.io|github\.com|install_kubernetes/);
    assert.ok(script.includes(`have_kubernetes || fail "kubeadm and kubelet 1.35.x are required; ${why}: $(found kubeadm version -o short)"`), script);
  }
});

test('the template\'s proxy is exported only inside the install functions', () => {
  const { spec } = parseClusterSpec(input({ template: { http_proxy: 'http://user:p$w@proxy:3128' } }));
  const script = bootstrapScriptOf(renderUserData(spec, { ...common, role: 'worker', nodeName: 'w', caCert: pki.ca.cert }));
  assert.match(script, /use_proxy\(\) \{\n  export http_proxy='http:\/\/user:p\$w@proxy:3128' HTTP_PROXY=/, 'one single-quoted shell word');
  assert.equal(shq("it's"), `'it'\\''s'`);
  assert.match(script, /install_kubernetes\(\) \(\n  use_proxy\n/);
  assert.match(script, /no_proxy='[^']*10\.0\.0\.10[^']*'/, 'the API endpoint bypasses it');
});

test('Node labels and taints: kubelet --node-labels, kubeadm taints; a control plane keeps its own taint', () => {
  const labels = groupNodeLabels({ name: 'gpu-pool', role: 'worker' }, { 'example.org/tier': 'gpu' });
  assert.deepEqual(labels, { 'magnum.openstack.org/nodegroup': 'gpu-pool', 'magnum.openstack.org/role': 'worker', 'example.org/tier': 'gpu' });
  const taints = [{ key: 'example.org/gpu', value: 'true', effect: 'NoSchedule' as const }];
  const join = joinConfig(worker({ nodeLabels: labels, nodeTaints: taints }));
  assert.deepEqual(join.nodeRegistration.kubeletExtraArgs[2], { name: 'node-labels', value: 'magnum.openstack.org/nodegroup=gpu-pool,magnum.openstack.org/role=worker,example.org/tier=gpu' });
  assert.deepEqual(join.nodeRegistration.taints, taints);
  assert.equal(joinConfig(worker()).nodeRegistration.taints, undefined, 'no taints given: kubeadm\'s defaults');
  const { spec } = parseClusterSpec(input());
  const cp = parse(renderUserData(spec, { ...common, role: 'control-plane', nodeName: 'cp', pki, nodeTaints: taints })) as { write_files: { path: string; content: string }[] };
  const cpJoin = parseAllDocuments(cp.write_files.find((f) => f.path.endsWith('kubeadm/config.yaml'))!.content).map((d) => d.toJS())[0];
  assert.deepEqual(cpJoin.nodeRegistration.taints, [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }, ...taints]);
  // What the kubelet would refuse never reaches a node.
  assert.throws(() => worker({ nodeLabels: { 'node-role.kubernetes.io/gpu': '' } }), /node label node-role\.kubernetes\.io\/gpu is in the node-role\.kubernetes\.io namespace/);
  assert.throws(() => worker({ nodeLabels: { 'example.org/x': 'a,b' } }), /not a label value/);
  assert.throws(() => worker({ nodeTaints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }] }), /controllers manage/);
});

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

test('docker_volume_size: a runtime volume formatted and mounted at /var/lib/containerd, after the etcd volume on control planes', () => {
  const { spec } = parseClusterSpec(input({ labels: { etcd_volume_size: '10', docker_volume_type: 'ssd' }, cluster: { docker_volume_size: 40 } }));
  assert.deepEqual(spec.nodes.runtimeVolume, { sizeGb: 40, type: 'ssd' });
  type Disks = { fs_setup: { label: string; device: string }[]; mounts: string[][] };
  const cp = parse(renderUserData(spec, { ...common, role: 'init', nodeName: 'cp', pki })) as Disks;
  assert.deepEqual(cp.fs_setup.map((f) => [f.label, f.device]), [['etcd', '/dev/vdb'], ['containerd', '/dev/vdc']]);
  assert.deepEqual(cp.mounts.map((m) => [m[0], m[1]]), [['LABEL=etcd', '/var/lib/etcd'], ['LABEL=containerd', '/var/lib/containerd']]);
  const wk = parse(renderUserData(spec, { ...common, role: 'worker', nodeName: 'w', caCert: pki.ca.cert })) as Disks;
  assert.deepEqual(wk.fs_setup.map((f) => [f.label, f.device]), [['containerd', '/dev/vdb']]);
  // A group without a volume of its own (null) has none, whatever the cluster's.
  assert.equal((parse(renderUserData(spec, { ...common, role: 'worker', nodeName: 'w', caCert: pki.ca.cert, runtimeVolume: null })) as Partial<Disks>).fs_setup, undefined);
  assert.match(bootstrapScriptOf(renderUserData(spec, { ...common, role: 'worker', nodeName: 'w', caCert: pki.ca.cert })), /systemctl restart containerd/, 'containerd restarts on its volume');
});

test('console findings: the bootstrap\'s first failure, Ignition refusing cloud-config, cloud-init ignoring Ignition', () => {
  const f = bootFinding('noise\nmagnum-bootstrap: FAILED: kubeadm and kubelet 1.35.x are required; installing at boot is disabled\nmagnum-bootstrap: FAILED: line 9: x\n');
  assert.deepEqual(f, { reason: 'NodeBootstrapFailed', message: 'its bootstrap failed: kubeadm and kubelet 1.35.x are required; installing at boot is disabled' });
  assert.equal(bootFinding('Ignition has failed. Please ensure your config is valid. Note that only\n')?.reason, 'UserDataNotRead');
  assert.match(bootFinding("cloud-init[1]: WARNING: Unhandled non-multipart (text/x-not-multipart) userdata: 'b'{...'")!.message, /cloud-init did not understand/);
  assert.equal(bootFinding('magnum-bootstrap: kubeadm join done\n'), undefined);
  assert.ok(isBootFailureReason('NodeBootstrapFailed') && !isBootFailureReason('Timeout'));
});
