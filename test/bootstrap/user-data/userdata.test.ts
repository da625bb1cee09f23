// One node's user-data in the format its image reads (#cloud-config for Ubuntu, Ignition for Fedora CoreOS): its
// inputs checked first, the result against Nova's size limit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { base64Size, kubeadmConfigYaml, renderUserData, validateUserDataInput } from '../../../src/bootstrap/user-data/userdata.js';
import { NOVA_USER_DATA_LIMIT, type UserDataInput } from '../../../src/bootstrap/user-data/inputs.js';
import { kubeadmConfigYaml as fromNodeFiles } from '../../../src/bootstrap/user-data/node-files.js';
import { kmsCloudConf } from '../../../src/features/kms/render.js';
import { parseClusterSpec } from '../../../src/cluster-spec/parse.js';
import { input, pki, TOKEN } from '../../support/spec-fixtures.js';

const { spec } = parseClusterSpec(input({ labels: { kube_tag: 'v1.36.1' } }));
const endpoint = { address: '10.0.0.10', extraSans: ['203.0.113.25', 'k1.example.org'] };
const common = { endpoint, bootstrapToken: TOKEN };
const w = { ...common, role: 'worker' as const, nodeName: 'ok', caCert: pki.ca.cert };

test('inputs are validated before rendering', () => {
  const w = { ...common, role: 'worker' as const, nodeName: 'ok', caCert: pki.ca.cert };
  assert.throws(() => renderUserData(spec, { ...w, nodeName: 'Bad_Name' }), /RFC 1123/);
  assert.throws(() => renderUserData(spec, { ...w, bootstrapToken: 'short.token' }), /bootstrap token/);
  assert.throws(() => renderUserData(spec, { ...w, endpoint: { address: '10.0.0.10; rm -rf /' } }), /endpoint/);
  assert.throws(() => renderUserData(spec, { ...w, caCert: 'garbage' }), /ca:/);
  const mismatched = { ...pki, ca: { cert: pki.ca.cert, key: pki.etcdCa.key } };
  assert.throws(() => renderUserData(spec, { ...common, role: 'init', nodeName: 'n', pki: mismatched }), /key does not match/);
});

test('largest user-data stays under Nova\'s base64 limit (measured), in both formats', () => {
  const { spec: big } = parseClusterSpec(
    input({
      // Every option that adds to a node's files: the mirror, an etcd and a runtime volume, Barbican KMS,
      // keystone-auth (default), the proxy the install goes through (a stock image installs at boot).
      labels: { kube_tag: 'v1.36.1', container_infra_prefix: 'registry.mirror.example.org:5000/k8s/upstream/', etcd_volume_size: '20', barbican_kms_enabled: 'true', docker_volume_type: 'a-long-volume-type-name' },
      template: { http_proxy: 'http://proxy.example.org:3128', https_proxy: 'http://proxy.example.org:3128', no_proxy: 'a.example.org,b.example.org,c.example.org' },
      cluster: { name: 'a'.repeat(242), docker_volume_size: 100 },
    }),
  );
  const extraSans = [...Array.from({ length: 20 }, (_, i) => `api-${i}.a-long-dns-name-for-the-cluster.example.org`), '203.0.113.25'];
  const nodeLabels = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`example.org/label-${i}`, 'v'.repeat(63)]));
  const nodeTaints = Array.from({ length: 10 }, (_, i) => ({ key: `example.org/taint-${i}`, value: 'v'.repeat(63), effect: 'NoSchedule' as const }));
  const sizes: Record<string, number> = {};
  for (const distro of ['ubuntu', 'fedora-coreos'] as const) {
    for (const role of ['init', 'control-plane', 'worker'] as const) {
      const kms = { cloudConf: kmsCloudConf({ authUrl: 'https://keystone.a-long-region-name.example.org:5000/v3', region: 'RegionOne', applicationCredentialId: 'f'.repeat(32), applicationCredentialSecret: 's'.repeat(86), caCertPem: pki.ca.cert }, '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0'), caCert: pki.ca.cert };
      const i = role === 'worker' ? { role, caCert: pki.ca.cert } : { role, pki, kms };
      const text = renderUserData(big, { ...i, endpoint: { address: '10.0.0.10', extraSans }, bootstrapToken: TOKEN, nodeName: `${big.cluster.shortName}-control-plane-a0000`, image: { distro, kubeVersion: null }, nodeLabels, nodeTaints } as UserDataInput);
      const key = `${distro}/${role}`;
      sizes[key] = base64Size(text);
      assert.equal(sizes[key], Buffer.from(text).toString('base64').length);
      assert.ok(sizes[key]! < NOVA_USER_DATA_LIMIT, key);
    }
  }
  console.log(`largest user-data (base64 bytes, limit ${NOVA_USER_DATA_LIMIT}): ${JSON.stringify(sizes)}`);
});

test('the format follows the image: #cloud-config for Ubuntu (the default), an Ignition JSON for Fedora CoreOS', () => {
  assert.ok(renderUserData(spec, w).startsWith('#cloud-config\n'));
  assert.ok(renderUserData(spec, { ...w, image: { distro: 'ubuntu', kubeVersion: 'v1.36.1' } }).startsWith('#cloud-config\n'));
  const ign = JSON.parse(renderUserData(spec, { ...w, image: { distro: 'fedora-coreos', kubeVersion: null } })) as { ignition: { version: string } };
  assert.equal(ign.ignition.version, '3.3.0');
});

test('a rendering over Nova\'s limit is refused, naming the node and its size', () => {
  const nodeLabels = Object.fromEntries(Array.from({ length: 1500 }, (_, i) => [`example.org/label-${i}`, 'v'.repeat(40)]));
  assert.throws(() => renderUserData(spec, { ...w, nodeName: 'big', nodeLabels }), /^Error: user-data for big is \d+ bytes in base64, over Nova's 65535$/);
});

test('base64Size: four characters per three bytes, the last group padded', () => {
  assert.deepEqual(['', 'a', 'ab', 'abc', 'abcd', 'é'].map(base64Size), [0, 4, 4, 4, 8, 4]);
  for (const s of ['#cloud-config\n', 'x'.repeat(1000), 'ünïcødé']) assert.equal(base64Size(s), Buffer.from(s).toString('base64').length);
});

test('validateUserDataInput: names, SANs, labels and taints as Kubernetes takes them', () => {
  assert.doesNotThrow(() => validateUserDataInput({ ...w, nodeName: 'a'.repeat(63), endpoint: { address: 'api.k1.example.org', extraSans: ['203.0.113.25'] } }));
  assert.throws(() => validateUserDataInput({ ...w, nodeName: 'a'.repeat(64) }), /RFC 1123/);
  assert.throws(() => validateUserDataInput({ ...w, nodeName: '-a' }), /RFC 1123/);
  assert.throws(() => validateUserDataInput({ ...w, endpoint: { address: '10.0.0.10', extraSans: ['bad name'] } }), /API endpoint name bad name/);
  assert.throws(() => validateUserDataInput({ ...w, nodeLabels: { 'Example.org/x': 'v' } }), /node label Example\.org\/x is not a label key/);
  assert.throws(() => validateUserDataInput({ ...w, nodeLabels: { 'example.org/x': 'v'.repeat(64) } }), /has a value that is not a label value/);
  assert.doesNotThrow(() => validateUserDataInput({ ...w, nodeLabels: { 'example.org/x': '' }, nodeTaints: [{ key: 'dedicated', effect: 'NoExecute' }] }));
  assert.throws(() => validateUserDataInput({ ...w, nodeTaints: [{ key: 'example.org/x', value: 'a b', effect: 'NoSchedule' }] }), /node taint example\.org\/x has a value that is not a label value/);
  assert.throws(() => validateUserDataInput({ ...w, nodeTaints: [{ key: 'a/b/c', effect: 'NoSchedule' }] }), /is not a taint key/);
});

test('kubeadmConfigYaml is node-files\' (re-exported for the worker)', () => {
  assert.equal(kubeadmConfigYaml, fromNodeFiles);
});
