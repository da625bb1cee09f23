import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { parseAllDocuments, parse } from 'yaml';
import { base64Size, renderUserData } from '../../../src/bootstrap/user-data/userdata.js';
import { NOVA_USER_DATA_LIMIT, type UserDataInput } from '../../../src/bootstrap/user-data/inputs.js';
import { kmsCloudConf } from '../../../src/features/kms/render.js';
import { caCertHash } from '../../../src/bootstrap/join.js';
import { parseClusterSpec } from '../../../src/cluster-spec/parse.js';
import { input, pki, TOKEN } from '../../support/spec-fixtures.js';

const { spec } = parseClusterSpec(input({ labels: { kube_tag: 'v1.36.1' } }));
const endpoint = { address: '10.0.0.10', extraSans: ['203.0.113.25', 'k1.example.org'] };
const common = { endpoint, bootstrapToken: TOKEN };

type CloudConfig = { hostname: string; write_files: { path: string; content: string; permissions: string }[]; runcmd: string[][] };
const render = (i: UserDataInput) => {
  const text = renderUserData(spec, i);
  assert.ok(text.startsWith('#cloud-config\n'));
  return parse(text) as CloudConfig;
};
const fileOf = (cc: CloudConfig, path: string) => cc.write_files.find((f) => f.path === path);
const kubeadmDocs = (cc: CloudConfig) =>
  parseAllDocuments(fileOf(cc, '/etc/kubernetes/kubeadm/config.yaml')!.content).map((d) => d.toJS() as Record<string, any>);

test('the CA hash equals what openssl computes from the certificate', () => {
  const der = execFileSync('sh', ['-c', 'openssl x509 -pubkey -noout | openssl pkey -pubin -outform DER | openssl dgst -sha256 -hex'], { input: pki.ca.cert }).toString();
  assert.equal(caCertHash(pki.ca.cert), `sha256:${der.trim().split(' ').pop()}`);
});

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

test('add-on apiserver hook: conflicting contributions are a programming error', async () => {
  const { apiServerExtensions } = await import('../../../src/bootstrap/addons/framework.js');
  const { addons } = await import('../../../src/bootstrap/addons/index.js');
  const ka = addons().find((m) => m.name === 'keystone-auth')!;
  const twin = { ...ka, name: 'twin' };
  assert.throws(() => apiServerExtensions([ka, twin], spec), /authentication-token-webhook-config-file is contributed by both add-ons keystone-auth and twin/);
  const sneaky = { ...ka, name: 'sneaky', apiServer: () => ({ extraArgs: [{ name: 'authorization-mode', value: 'AlwaysAllow' }] }) };
  assert.throws(() => apiServerExtensions([sneaky], spec), /contribute authorizationModes/);
  const pkiWriter = { ...ka, name: 'pki', apiServer: () => ({ files: [{ path: '/etc/kubernetes/pki/ca.key', content: 'x' }] }) };
  assert.throws(() => apiServerExtensions([pkiWriter], spec), /own directory under \/etc\/kubernetes/);
});

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
