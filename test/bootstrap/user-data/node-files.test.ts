// What one node needs on its disk, whatever format its user-data: host settings, the control plane's PKI and
// add-on files, the KMS files, the kubeadm configuration, the install units and the bootstrap script.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import type { UserDataInput } from '../../../src/bootstrap/user-data/inputs.js';
import { DEFAULT_IMAGE, kubeadmConfigYaml, nodeConfig } from '../../../src/bootstrap/user-data/node-files.js';
import { kubeadmDocuments } from '../../../src/bootstrap/user-data/kubeadm.js';
import { renderUserData } from '../../../src/bootstrap/user-data/userdata.js';
import { caCertHash } from '../../../src/bootstrap/join.js';
import { parseClusterSpec } from '../../../src/cluster-spec/parse.js';
import { input, pki, TOKEN } from '../../support/spec-fixtures.js';
import { specOf } from '../../support/labels.js';
import { kubeadmDocs, type CloudConfig } from '../../support/node-files.js';

const { spec } = parseClusterSpec(input({ labels: { kube_tag: 'v1.36.1' } }));
const endpoint = { address: '10.0.0.10', extraSans: ['203.0.113.25', 'k1.example.org'] };
const common = { endpoint, bootstrapToken: TOKEN };
const worker = { ...common, role: 'worker' as const, nodeName: 'w', caCert: pki.ca.cert };
const init = { ...common, role: 'init' as const, nodeName: 'cp', pki };
const paths = (s: typeof spec, i: UserDataInput) => nodeConfig(s, i).files.map((f) => `${f.path} ${f.permissions}`);

test('workers get token + CA hash only: no CA key, no PKI files', () => {
  const text = renderUserData(spec, { ...common, role: 'worker', nodeName: 'k1-5d12f-worker-b0000', caCert: pki.ca.cert });
  for (const secret of [pki.ca.key, pki.etcdCa.key, pki.frontProxyCa.key, pki.serviceAccount.key]) {
    assert.ok(!text.includes(secret.split('\n')[1]!), 'no key material on workers');
  }
  assert.ok(!text.includes('PRIVATE KEY'));
  assert.ok(!text.includes('/etc/kubernetes/pki'));
  const [join] = kubeadmDocs(parse(text) as CloudConfig);
  assert.equal(join!.controlPlane, undefined);
  assert.deepEqual(join!.discovery.bootstrapToken.caCertHashes, [caCertHash(pki.ca.cert)]);
});

test('the files of each role, in order: host settings, the PKI and add-on files of control planes, kubeadm\'s config, the install units, the script last', () => {
  assert.deepEqual(paths(spec, worker), [
    '/etc/modules-load.d/kubernetes.conf 0644',
    '/etc/sysctl.d/99-kubernetes.conf 0644',
    '/etc/containerd/config.toml 0644',
    '/etc/kubernetes/kubeadm/config.yaml 0600',
    '/usr/local/lib/magnum/containerd.service 0644',
    '/usr/local/bin/magnum-bootstrap 0700',
  ]);
  const cp = paths(spec, init);
  assert.deepEqual(cp.filter((p) => p.startsWith('/etc/kubernetes/pki/')), [
    '/etc/kubernetes/pki/ca.crt 0644', '/etc/kubernetes/pki/ca.key 0600', '/etc/kubernetes/pki/etcd/ca.crt 0644', '/etc/kubernetes/pki/etcd/ca.key 0600',
    '/etc/kubernetes/pki/front-proxy-ca.crt 0644', '/etc/kubernetes/pki/front-proxy-ca.key 0600', '/etc/kubernetes/pki/sa.key 0600', '/etc/kubernetes/pki/sa.pub 0644',
  ]);
  assert.ok(cp.includes('/etc/kubernetes/webhooks/webhookconfig.yaml 0600'), 'keystone-auth\'s file (on by default)');
  assert.equal(cp.at(-1), '/usr/local/bin/magnum-bootstrap 0700');
});

test('the install units: containerd\'s when the node installs at boot; kubelet\'s too on Fedora CoreOS; none for an image that carries them', () => {
  const units = (i: Partial<UserDataInput>, s = spec) => nodeConfig(s, { ...worker, ...i } as UserDataInput).files.map((f) => f.path).filter((p) => p.startsWith('/usr/local/lib/magnum/'));
  assert.deepEqual(units({}), ['/usr/local/lib/magnum/containerd.service']);
  assert.deepEqual(units({ image: { distro: 'fedora-coreos', kubeVersion: null } }), ['/usr/local/lib/magnum/containerd.service', '/usr/local/lib/magnum/kubelet.service', '/usr/local/lib/magnum/10-kubeadm.conf']);
  assert.deepEqual(units({ image: { distro: 'ubuntu', kubeVersion: 'v1.36.1' } }), []);
  assert.deepEqual(units({}, specOf({ labels: { kube_install_at_boot: 'false' } })), []);
  assert.deepEqual(DEFAULT_IMAGE, { distro: 'ubuntu', kubeVersion: null });
  assert.deepEqual(nodeConfig(spec, worker).image, DEFAULT_IMAGE);
});

test('the proxy drop-in for containerd only with the template\'s proxy; the hostname is the node name; kubeadm\'s documents as one YAML stream', () => {
  const proxied = specOf({ template: { http_proxy: 'http://proxy:3128' } });
  assert.ok(paths(proxied, worker).includes('/etc/systemd/system/containerd.service.d/http-proxy.conf 0644'));
  assert.ok(!paths(spec, worker).some((p) => p.includes('http-proxy.conf')));
  assert.equal(nodeConfig(spec, init).hostname, 'cp');
  const yaml = kubeadmConfigYaml(spec, init);
  assert.equal(yaml.split(/^---$/m).length, 3);
  assert.deepEqual(yaml.split(/^---\n/m).map((d) => parse(d).kind), kubeadmDocuments(spec, init).map((d) => d.kind));
});

test('a node group\'s own runtime volume (or none) replaces the cluster\'s', () => {
  const s = specOf({ cluster: { docker_volume_size: 40 } });
  assert.deepEqual(nodeConfig(s, worker).disks.map((d) => d.volume), [{ sizeGb: 40, type: '' }]);
  assert.deepEqual(nodeConfig(s, { ...worker, runtimeVolume: { sizeGb: 80, type: 'ssd' } }).disks.map((d) => d.volume), [{ sizeGb: 80, type: 'ssd' }]);
  assert.deepEqual(nodeConfig(s, { ...worker, runtimeVolume: null }).disks, []);
});
