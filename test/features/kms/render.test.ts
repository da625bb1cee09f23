// Barbican KMS on the control planes: kube-apiserver's EncryptionConfiguration (KMS v2, then identity), the plugin's
// static pod and its cloud.conf, the apiserver's flag and mounts, and the files a credential rotation replaces.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { sha256 } from '../../../src/bootstrap/host-sync.js';
import { renderUserData } from '../../../src/bootstrap/user-data/userdata.js';
import { ENCRYPTION_CONFIG_PATH, encryptionConfiguration, KMS_CONF_CHECKSUM, KMS_CONFIG_PATH, KMS_MANIFEST_PATH, KMS_SYNC_NAME, kmsApiServer, kmsCloudConf, kmsCredentialSync, kmsMirrorPod, kmsStaticPod } from '../../../src/features/kms/render.js';
import { parseClusterSpec } from '../../../src/cluster-spec/parse.js';
import { input, keystoneCa, pki, TOKEN } from '../../support/spec-fixtures.js';
import { specOf } from '../../support/labels.js';
import { fileOf, kubeadmDocs, type CloudConfig } from '../../support/node-files.js';

const { spec } = parseClusterSpec(input({ labels: { kube_tag: 'v1.36.1' } }));
const common = { endpoint: { address: '10.0.0.10', extraSans: ['203.0.113.25', 'k1.example.org'] }, bootstrapToken: TOKEN };
const render = (i: Parameters<typeof renderUserData>[1]) => parse(renderUserData(spec, i)) as CloudConfig;
const cred = { authUrl: 'https://keystone.example.org:5000/v3', region: 'RegionOne', applicationCredentialId: 'id', applicationCredentialSecret: 's "quoted"' };
const KEY = '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0';

test('barbican_kms_enabled: control planes get the encryption config, the plugin static pod and its cloud.conf; the apiserver the flag and mounts; workers nothing', () => {
  const kmsSpec = parseClusterSpec(input({ labels: { kube_tag: 'v1.36.1', barbican_kms_enabled: 'true' } })).spec;
  const kms = { cloudConf: '[Global]\nauth-url=https://keystone.example.org/v3\n\n[KeyManager]\nkey-id=0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0\n', caCert: pki.ca.cert };
  const cc = parse(renderUserData(kmsSpec, { ...common, role: 'init', nodeName: 'k1-5d12f-control-plane-a0000', pki, kms })) as CloudConfig;
  const enc = parse(fileOf(cc, '/etc/kubernetes/encryption/config.yaml')!.content);
  assert.equal(enc.kind, 'EncryptionConfiguration');
  assert.deepEqual(enc.resources[0].resources, ['secrets']);
  assert.deepEqual(enc.resources[0].providers[0].kms, { apiVersion: 'v2', name: 'barbican', endpoint: 'unix:///var/lib/kms/kms.sock', timeout: '3s' });
  assert.deepEqual(enc.resources[0].providers[1], { identity: {} }, 'Secrets written before stay readable');
  const pod = parse(fileOf(cc, '/etc/kubernetes/manifests/barbican-kms.yaml')!.content);
  assert.equal(pod.spec.containers[0].image, `registry.k8s.io/provider-os/barbican-kms-plugin:${kmsSpec.kubernetes.components.cloudProvider}`);
  assert.ok(pod.spec.hostNetwork);
  const conf = fileOf(cc, '/etc/kubernetes/barbican-kms/cloud.conf')!;
  assert.equal(conf.permissions, '0600');
  assert.match(conf.content, /\[KeyManager\]\nkey-id=0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0/);
  assert.ok(fileOf(cc, '/etc/kubernetes/barbican-kms/ca.crt'));
  const cluster = kubeadmDocs(cc)[1]!;
  assert.ok(cluster.apiServer.extraArgs.some((a: { name: string; value: string }) => a.name === 'encryption-provider-config' && a.value === '/etc/kubernetes/encryption/config.yaml'));
  assert.deepEqual(cluster.apiServer.extraVolumes.map((v: { hostPath: string }) => v.hostPath).filter((p: string) => /kms|encryption/.test(p)), ['/etc/kubernetes/encryption', '/var/lib/kms']);
  // The joining control planes get the same files; workers none; the material is required exactly when enabled.
  const join = parse(renderUserData(kmsSpec, { ...common, role: 'control-plane', nodeName: 'k1-5d12f-control-plane-a0001', pki, kms })) as CloudConfig;
  assert.ok(fileOf(join, '/etc/kubernetes/manifests/barbican-kms.yaml'));
  const worker = parse(renderUserData(kmsSpec, { ...common, role: 'worker', nodeName: 'k1-5d12f-worker-b0000', caCert: pki.ca.cert })) as CloudConfig;
  assert.ok(!worker.write_files.some((f) => /kms|encryption/.test(f.path)));
  assert.throws(() => renderUserData(kmsSpec, { ...common, role: 'init', nodeName: 'k1-5d12f-control-plane-a0000', pki }), /KMS material must be given/);
  assert.throws(() => renderUserData(spec, { ...common, role: 'init', nodeName: 'k1-5d12f-control-plane-a0000', pki, kms }), /KMS material must be given/);
  const plain = kubeadmDocs(render({ ...common, role: 'init', nodeName: 'k1-5d12f-control-plane-a0000', pki }))[1]!;
  assert.ok(!JSON.stringify(plain).includes('encryption-provider-config'));
});

test('the EncryptionConfiguration: Secrets through the plugin\'s socket, identity to read what was written before', () => {
  assert.equal(ENCRYPTION_CONFIG_PATH, '/etc/kubernetes/encryption/config.yaml');
  const enc = parse(encryptionConfiguration());
  assert.deepEqual([enc.apiVersion, enc.kind], ['apiserver.config.k8s.io/v1', 'EncryptionConfiguration']);
  assert.deepEqual(enc.resources[0].providers.map((p: Record<string, unknown>) => Object.keys(p)[0]), ['kms', 'identity']);
  assert.deepEqual(kmsApiServer().extraArgs, [{ name: 'encryption-provider-config', value: ENCRYPTION_CONFIG_PATH }]);
  assert.deepEqual(kmsApiServer().volumes.map((v) => [v.hostPath, v.readOnly]), [['/etc/kubernetes/encryption', true], ['/var/lib/kms', false]], 'the socket is written by the plugin, read and written by the apiserver');
});

test('the plugin\'s static pod: the spec\'s image on the host network, its socket and config folders; annotated only when told (so a changed cloud.conf restarts it)', () => {
  const s = specOf({ labels: { barbican_kms_enabled: 'true', container_infra_prefix: 'mirror.example.org/k8s' } });
  const pod = parse(kmsStaticPod(s));
  assert.deepEqual([pod.kind, pod.metadata.name, pod.metadata.namespace, pod.metadata.annotations], ['Pod', 'barbican-kms', 'kube-system', undefined]);
  assert.equal(pod.spec.containers[0].image, `mirror.example.org/k8s/barbican-kms-plugin:${s.kubernetes.components.cloudProvider}`);
  assert.deepEqual(pod.spec.containers[0].args, ['/bin/barbican-kms-plugin', '--socketpath=/var/lib/kms/kms.sock', `--cloud-config=${KMS_CONFIG_PATH}`]);
  assert.deepEqual(pod.spec.volumes.map((v: { hostPath: { path: string; type: string } }) => [v.hostPath.path, v.hostPath.type]), [['/var/lib/kms', 'DirectoryOrCreate'], ['/etc/kubernetes/barbican-kms', 'Directory']]);
  assert.deepEqual(parse(kmsStaticPod(s, { [KMS_CONF_CHECKSUM]: 'abc' })).metadata.annotations, { 'checksum/cloud-config': 'abc' });
});

test('the plugin\'s cloud.conf: the credential (quoted when it must be) and the key; the CA file only with a private CA', () => {
  assert.equal(kmsCloudConf(cred, KEY), `[Global]\nauth-url=https://keystone.example.org:5000/v3\nregion=RegionOne\napplication-credential-id=id\napplication-credential-secret="s \\"quoted\\""\n\n[KeyManager]\nkey-id=${KEY}\n`);
  assert.match(kmsCloudConf({ ...cred, caCertPem: keystoneCa }, KEY), /\nca-file=\/etc\/kubernetes\/barbican-kms\/ca\.crt\n\n\[KeyManager\]/);
  assert.throws(() => kmsCloudConf({ ...cred, region: 'a\nb' }, KEY), /line breaks/);
});

test('a credential rotation: the agent writes the CA, then the cloud.conf, then the manifest annotated with its checksum; the checksum is the cloud.conf\'s', () => {
  const s = specOf({ labels: { barbican_kms_enabled: 'true' } });
  const { objects, checksum } = kmsCredentialSync(s, { ...cred, caCertPem: keystoneCa }, KEY);
  const conf = kmsCloudConf({ ...cred, caCertPem: keystoneCa }, KEY);
  assert.equal(checksum, sha256(conf));
  const [secret, ds] = objects as any[];
  assert.deepEqual([secret.kind, secret.metadata.name, ds.kind, ds.metadata.name], ['Secret', KMS_SYNC_NAME, 'DaemonSet', KMS_SYNC_NAME]);
  assert.equal(ds.spec.template.spec.containers[0].image, s.kms.agentImage);
  const files = Object.values(secret.data as Record<string, string>).map((v) => Buffer.from(v, 'base64').toString());
  assert.deepEqual(files, [keystoneCa, conf, kmsStaticPod(s, { [KMS_CONF_CHECKSUM]: checksum })]);
  assert.deepEqual(ds.spec.template.spec.containers[0].args.slice(1), ['/sync/file-0=/host/etc/kubernetes/barbican-kms/ca.crt', `/sync/file-1=/host${KMS_CONFIG_PATH}`, `/sync/file-2=/host${KMS_MANIFEST_PATH}`]);
  assert.equal(kmsCredentialSync(s, cred, KEY).objects.length, 2);
  assert.equal(Object.keys((kmsCredentialSync(s, cred, KEY).objects[0] as any).data).length, 2, 'no CA to write without one');
  assert.equal(kmsMirrorPod('k1-5d12f-control-plane-a0000'), 'barbican-kms-k1-5d12f-control-plane-a0000');
});
