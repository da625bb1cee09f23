// kubeadm's v1beta4 documents of each role: the first control plane's init (its bootstrap token, the cluster
// configuration with the add-ons' apiserver wiring), the joins (discovery by token and CA hash), the kubelet's
// configuration, and each node's registration (provider id, labels, taints).
/* eslint-disable @typescript-eslint/no-explicit-any */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse, parseAllDocuments } from 'yaml';
import type { UserDataInput } from '../../../src/bootstrap/user-data/inputs.js';
import { certSans, endpointHostPort, INSTANCE_ID_PLACEHOLDER, KUBEADM_API, kubeadmDocuments, pauseImage, VOLUME_PLUGIN_DIR } from '../../../src/bootstrap/user-data/kubeadm.js';
import { renderUserData } from '../../../src/bootstrap/user-data/userdata.js';
import { caCertHash } from '../../../src/bootstrap/join.js';
import { groupNodeLabels } from '../../../src/cluster-spec/node-labels.js';
import { parseClusterSpec } from '../../../src/cluster-spec/parse.js';
import { input, keystoneCa, pki, TOKEN } from '../../support/spec-fixtures.js';
import { specOf } from '../../support/labels.js';
import { cloudConfigOf, fileOf, kubeadmDocs, type CloudConfig } from '../../support/node-files.js';
import { joinConfig, workerUserData } from '../../support/user-data.js';

const { spec } = parseClusterSpec(input({ labels: { kube_tag: 'v1.36.1' } }));
const endpoint = { address: '10.0.0.10', extraSans: ['203.0.113.25', 'k1.example.org'] };
const common = { endpoint, bootstrapToken: TOKEN };
const render = (i: UserDataInput): CloudConfig => {
  const text = renderUserData(spec, i);
  assert.ok(text.startsWith('#cloud-config\n'));
  return cloudConfigOf(text);
};
const docs = (over: Parameters<typeof specOf>[0], i: Partial<UserDataInput> = {}) =>
  kubeadmDocuments(specOf(over), { ...common, role: 'init', nodeName: 'cp', pki, ...i } as UserDataInput) as Record<string, any>[];

test('first control plane: kubeadm init with v1beta4 configs, shared PKI, SANs and endpoint', () => {
  const cc = render({ ...common, role: 'init', nodeName: 'k1-5d12f-control-plane-a0000', pki });
  assert.equal(cc.hostname, 'k1-5d12f-control-plane-a0000');
  const [init, cluster, kubelet] = kubeadmDocs(cc);
  assert.equal(init!.kind, 'InitConfiguration');
  assert.equal(init!.apiVersion, 'kubeadm.k8s.io/v1beta4');
  assert.equal(init!.nodeRegistration.name, 'k1-5d12f-control-plane-a0000');
  assert.deepEqual(init!.nodeRegistration.kubeletExtraArgs[0], { name: 'cloud-provider', value: 'external' });
  assert.deepEqual(init!.nodeRegistration.kubeletExtraArgs[1], { name: 'provider-id', value: 'openstack:///__INSTANCE_ID__' });
  assert.equal(init!.bootstrapTokens[0].token, TOKEN);
  assert.equal(cluster!.kind, 'ClusterConfiguration');
  assert.equal(cluster!.kubernetesVersion, 'v1.36.1');
  assert.equal(cluster!.controlPlaneEndpoint, '10.0.0.10:6443');
  assert.deepEqual(cluster!.apiServer.certSANs, ['10.0.0.10', '203.0.113.25', 'k1.example.org']);
  assert.ok(!cluster!.apiServer.extraArgs.some((a: { name: string }) => a.name === 'cloud-provider'), 'no --cloud-provider on the apiserver');
  assert.deepEqual(cluster!.controllerManager.extraArgs, [
    { name: 'cloud-provider', value: 'external' },
    { name: 'cluster-name', value: spec.cluster.uuid },
    { name: 'flex-volume-plugin-dir', value: '/var/lib/kubelet/volumeplugins' },
  ]);
  assert.deepEqual(cluster!.networking, { podSubnet: '10.100.0.0/16', serviceSubnet: '10.254.0.0/16', dnsDomain: 'cluster.local' });
  assert.equal(kubelet!.cgroupDriver, 'systemd');
  assert.equal(kubelet!.volumePluginDir, '/var/lib/kubelet/volumeplugins', 'writable on images whose /usr is read-only');
  assert.equal(fileOf(cc, '/etc/kubernetes/pki/ca.key')!.content, pki.ca.key);
  assert.equal(fileOf(cc, '/etc/kubernetes/pki/ca.key')!.permissions, '0600');
  assert.equal(fileOf(cc, '/etc/kubernetes/pki/etcd/ca.key')!.content, pki.etcdCa.key);
  assert.equal(fileOf(cc, '/etc/kubernetes/pki/sa.pub')!.content, pki.serviceAccount.pub);
  assert.match(fileOf(cc, '/etc/containerd/config.toml')!.content, /version = 3[\s\S]*SystemdCgroup = true/);
  assert.match(fileOf(cc, '/usr/local/bin/magnum-bootstrap')!.content, /kubeadm init --config/);
  assert.deepEqual(cc.runcmd, [['/usr/local/bin/magnum-bootstrap']]);
});

test('other control planes join with --control-plane config and the shared certificates', () => {
  const cc = render({ ...common, role: 'control-plane', nodeName: 'k1-5d12f-control-plane-a0001', pki });
  const docs = kubeadmDocs(cc);
  assert.equal(docs.length, 1);
  assert.equal(docs[0]!.kind, 'JoinConfiguration');
  assert.deepEqual(docs[0]!.controlPlane, { localAPIEndpoint: { bindPort: 6443 } });
  assert.deepEqual(docs[0]!.discovery.bootstrapToken, { apiServerEndpoint: '10.0.0.10:6443', token: TOKEN, caCertHashes: [caCertHash(pki.ca.cert)] });
  for (const f of ['ca.key', 'etcd/ca.key', 'front-proxy-ca.key', 'sa.key']) assert.ok(fileOf(cc, `/etc/kubernetes/pki/${f}`), f);
  assert.match(fileOf(cc, '/usr/local/bin/magnum-bootstrap')!.content, /for attempt in[\s\S]*kubeadm join --config/);
});

test('add-on apiserver hook: keystone-auth contributes flags, the Webhook authorizer and a file on every control plane only', () => {
  const WEBHOOK = '/etc/kubernetes/webhooks/webhookconfig.yaml';
  const init = render({ ...common, role: 'init', nodeName: 'k1-5d12f-control-plane-a0000', pki });
  const api = kubeadmDocs(init)[1]!.apiServer;
  assert.deepEqual(api.extraArgs, [
    { name: 'authentication-token-webhook-config-file', value: WEBHOOK },
    { name: 'authorization-webhook-config-file', value: WEBHOOK },
    { name: 'authorization-mode', value: 'Node,RBAC,Webhook' },
  ]);
  assert.deepEqual(api.extraVolumes, [{ name: 'addon-webhooks', hostPath: '/etc/kubernetes/webhooks', mountPath: '/etc/kubernetes/webhooks', readOnly: true, pathType: 'DirectoryOrCreate' }]);
  const kubeconfig = parse(fileOf(init, WEBHOOK)!.content);
  assert.equal(kubeconfig.clusters[0].cluster.server, 'https://127.0.0.1:8443/webhook');
  assert.equal(fileOf(init, WEBHOOK)!.permissions, '0600');
  assert.ok(fileOf(render({ ...common, role: 'control-plane', nodeName: 'k1-5d12f-control-plane-a0001', pki }), WEBHOOK));
  assert.equal(fileOf(render({ ...common, role: 'worker', nodeName: 'k1-5d12f-worker-b0000', caCert: pki.ca.cert }), WEBHOOK), undefined);

  const off = parseClusterSpec(input({ labels: { keystone_auth_enabled: 'false' } })).spec;
  const cc = parse(renderUserData(off, { ...common, role: 'init', nodeName: 'k1-5d12f-control-plane-a0000', pki })) as CloudConfig;
  const offApi = kubeadmDocs(cc)[1]!.apiServer;
  assert.deepEqual([offApi.extraArgs, offApi.extraVolumes, fileOf(cc, WEBHOOK)], [undefined, undefined, undefined]);
});

test('Node labels and taints: kubelet --node-labels, kubeadm taints; a control plane keeps its own taint', () => {
  const labels = groupNodeLabels({ name: 'gpu pool', role: 'worker' }, { 'example.org/tier': 'gpu' });
  assert.deepEqual(labels, { 'magnum.openstack.org/nodegroup': 'gpu-pool', 'magnum.openstack.org/role': 'worker', 'example.org/tier': 'gpu' });
  const taints = [{ key: 'example.org/gpu', value: 'true', effect: 'NoSchedule' as const }];
  const join = joinConfig(workerUserData({ nodeLabels: labels, nodeTaints: taints }));
  assert.deepEqual(join.nodeRegistration.kubeletExtraArgs[2], { name: 'node-labels', value: 'magnum.openstack.org/nodegroup=gpu-pool,magnum.openstack.org/role=worker,example.org/tier=gpu' });
  assert.deepEqual(join.nodeRegistration.taints, taints);
  assert.equal(joinConfig(workerUserData()).nodeRegistration.taints, undefined, 'no taints given: kubeadm\'s defaults');
  const plain = parseClusterSpec(input()).spec;
  const cp = parse(renderUserData(plain, { ...common, role: 'control-plane', nodeName: 'cp', pki, nodeTaints: taints })) as { write_files: { path: string; content: string }[] };
  const cpJoin = parseAllDocuments(cp.write_files.find((f) => f.path.endsWith('kubeadm/config.yaml'))!.content).map((d) => d.toJS())[0];
  assert.deepEqual(cpJoin.nodeRegistration.taints, [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }, ...taints]);
  // What the kubelet would refuse never reaches a node.
  assert.throws(() => workerUserData({ nodeLabels: { 'node-role.kubernetes.io/gpu': '' } }), /node label node-role\.kubernetes\.io\/gpu is in the node-role\.kubernetes\.io namespace/);
  assert.throws(() => workerUserData({ nodeLabels: { 'example.org/x': 'a,b' } }), /not a label value/);
  assert.throws(() => workerUserData({ nodeTaints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }] }), /controllers manage/);
});

test('the endpoint: host:port of the apiserver\'s port; its SANs the address, then the other names, each once', () => {
  const s = specOf({ template: { apiserver_port: 8443 } });
  assert.equal(endpointHostPort(s, { address: 'k1.example.org' }), 'k1.example.org:8443');
  assert.deepEqual(certSans({ address: '10.0.0.10', extraSans: ['203.0.113.25', '10.0.0.10', '203.0.113.25'] }), ['10.0.0.10', '203.0.113.25']);
  const [init, cluster] = docs({ template: { apiserver_port: 8443 } });
  assert.deepEqual(init!.localAPIEndpoint, { bindPort: 8443 });
  assert.equal(cluster!.controlPlaneEndpoint, '10.0.0.10:8443');
});

test('init: a 2-hour bootstrap token of kubeadm\'s node group, the cluster\'s short name, the mirror as imageRepository and pause image', () => {
  const [init, cluster, kubelet] = docs({ labels: { container_infra_prefix: 'mirror.example.org/k8s' } });
  assert.equal(init!.apiVersion, KUBEADM_API);
  assert.deepEqual(init!.bootstrapTokens, [{ token: TOKEN, description: 'magnum-ts: joins of the initial nodes', ttl: '2h0m0s', usages: ['signing', 'authentication'], groups: ['system:bootstrappers:kubeadm:default-node-token'] }]);
  assert.deepEqual([cluster!.clusterName, cluster!.imageRepository], ['k1-5d12f', 'mirror.example.org/k8s']);
  assert.equal(docs({})[1]!.imageRepository, undefined, 'kubeadm\'s own registry without a mirror');
  assert.equal(pauseImage(specOf({ labels: { container_infra_prefix: 'mirror.example.org/k8s' } })), 'mirror.example.org/k8s/pause:3.10.1');
  assert.equal(pauseImage(specOf()), 'registry.k8s.io/pause:3.10.1');
  assert.deepEqual(kubelet, { apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration', cgroupDriver: 'systemd', clusterDNS: ['10.254.0.10'], clusterDomain: 'cluster.local', volumePluginDir: VOLUME_PLUGIN_DIR });
  assert.equal(init!.nodeRegistration.criSocket, 'unix:///run/containerd/containerd.sock');
  assert.deepEqual(init!.nodeRegistration.kubeletExtraArgs[1], { name: 'provider-id', value: `openstack:///${INSTANCE_ID_PLACEHOLDER}` });
});

test('flannel\'s per-node subnet is kube-controller-manager\'s node-cidr-mask-size when it is not the default /24', () => {
  const cm = (labels: Record<string, string>) => docs({ network_driver: 'flannel', labels })[1]!.controllerManager.extraArgs.map((a: { name: string }) => a.name);
  assert.ok(cm({ flannel_network_subnetlen: '26' }).includes('node-cidr-mask-size'));
  assert.deepEqual(docs({ network_driver: 'flannel', labels: { flannel_network_subnetlen: '26' } })[1]!.controllerManager.extraArgs.at(-1), { name: 'node-cidr-mask-size', value: '26' });
  assert.ok(!cm({}).includes('node-cidr-mask-size'));
  assert.deepEqual(docs({ network_driver: 'flannel' })[1]!.networking, { podSubnet: '10.100.0.0/16', serviceSubnet: '10.254.0.0/16', dnsDomain: 'cluster.local' });
});

test('joins trust the cluster CA and, during a CA rotation, the CAs given beside it', () => {
  const join = kubeadmDocuments(spec, { ...common, role: 'worker', nodeName: 'w', caCert: pki.ca.cert, trustedCaCerts: [keystoneCa] })[0] as any;
  assert.deepEqual(join.discovery.bootstrapToken.caCertHashes, [caCertHash(pki.ca.cert), caCertHash(keystoneCa)]);
  assert.equal(join.controlPlane, undefined);
  const cp = kubeadmDocuments(spec, { ...common, role: 'control-plane', nodeName: 'c', pki })[0] as any;
  assert.deepEqual(cp.discovery.bootstrapToken.caCertHashes, [caCertHash(pki.ca.cert)]);
});
