// Every artefact of one cluster as a file map: golden renderings of representative clusters with fixed (test-only)
// PKI and token, the add-on manifests, node names and the KMS key of the control planes' user-data.
// Update after an intended change: UPDATE_GOLDEN=1 node --import tsx --test test/bootstrap/render-all.test.ts

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NodeImage } from '../../src/cluster-spec/image.js';
import { parseAllDocuments } from 'yaml';
import { manifest, nodeName, renderCluster, type ClusterMaterial } from '../../src/bootstrap/render-all.js';
import { parseClusterSpec } from '../../src/cluster-spec/parse.js';
import { rendered } from '../support/addons.js';
import { specOf } from '../support/labels.js';
import { ignitionFiles } from '../support/node-files.js';
import { input, keystoneCa, pki, TOKEN } from '../support/spec-fixtures.js';

const ROOT = fileURLToPath(new URL('./golden/', import.meta.url));
const UPDATE = process.env.UPDATE_GOLDEN === '1';

type Case = Parameters<typeof input>[0] & { image?: NodeImage };

// Images: a prebuilt Ubuntu (kube_version: nothing installed at boot), a stock Ubuntu (installs, through
// the proxy where there is one), Fedora CoreOS (Ignition, installs from the release downloads).
const CASES: Record<string, Case> = {
  'calico-1.35-ha': { image: { distro: 'ubuntu', kubeVersion: 'v1.35.5' }, labels: { master_lb_allowed_cidrs: '192.0.2.0/24', calico_ipv4pool_ipip: 'Always', some_custom_label: 'kept', monitoring_enabled: 'true', monitoring_storage_class_name: 'csi-cinder-sc-delete', barbican_kms_enabled: 'true' } },
  'flannel-1.34-single': { network_driver: 'flannel', template: { master_lb_enabled: false }, cluster: { name: 'small', master_count: 1, node_count: 1 }, labels: { kube_tag: 'v1.34.8', metrics_server_enabled: 'false', keystone_auth_enabled: 'false' } },
  'calico-1.36-ovn-proxy': {
    labels: { kube_tag: 'v1.36.1', octavia_provider: 'ovn', container_infra_prefix: 'mirror.example.org/k8s', calico_ipv4pool: '172.20.0.0/16', ingress_controller: 'octavia', external_dns_zone: 'apps.example.org', manila_csi_enabled: 'true', manila_csi_share_network_id: '4f2b9c3e-1d5a-4e8b-9c7d-2a6f8e0b1c3d', keystone_auth_policy: 'project-roles' },
    template: { apiserver_port: 8443, http_proxy: 'http://proxy.example.org:3128', no_proxy: 'internal.example.org' },
  },
  'flannel-1.35-fcos-volumes': {
    image: { distro: 'fedora-coreos', kubeVersion: null },
    network_driver: 'flannel',
    cluster: { name: 'coreos', docker_volume_size: 50 },
    labels: { etcd_volume_size: '10', docker_volume_type: 'ssd', kube_dashboard_enabled: 'true' },
  },
};

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
}

for (const [name, { image, ...over }] of Object.entries(CASES)) {
  test(`golden: ${name}`, () => {
    const { spec, warnings } = parseClusterSpec(input(over));
    const files = renderCluster(spec, warnings, {
      pki,
      bootstrapToken: TOKEN,
      endpoint: { address: '10.0.0.10', extraSans: ['203.0.113.25', 'k1.example.org'] },
      credential: { authUrl: 'https://keystone.example.org:5000/v3', region: 'RegionOne', applicationCredentialId: 'app-cred-id', applicationCredentialSecret: 'app-cred-secret', caCertPem: keystoneCa },
      network: { floatingNetworkId: 'ext-net-id', subnetId: 'subnet-id', networkName: 'k1-net' },
      ...(image ? { image } : {}),
    });
    const dir = join(ROOT, name);
    if (UPDATE) {
      rmSync(dir, { recursive: true, force: true });
      for (const [f, content] of Object.entries(files)) {
        mkdirSync(dirname(join(dir, f)), { recursive: true });
        writeFileSync(join(dir, f), content);
      }
    }
    const onDisk = walk(dir).map((p) => relative(dir, p)).sort();
    assert.deepEqual(onDisk, Object.keys(files).sort(), `golden files of ${name} (UPDATE_GOLDEN=1 to regenerate)`);
    for (const [f, content] of Object.entries(files)) {
      assert.equal(content, readFileSync(join(dir, f), 'utf8'), `${name}/${f} differs (UPDATE_GOLDEN=1 to regenerate)`);
    }
  });
}

test('render-all manifests are multi-document YAML that round-trips to the objects', () => {
  const { addons } = rendered();
  for (const a of addons) {
    const docs = parseAllDocuments(manifest(a.objects)).map((d) => d.toJS());
    assert.deepEqual(docs, a.objects);
  }
});

const material: ClusterMaterial = {
  pki,
  bootstrapToken: TOKEN,
  endpoint: { address: '10.0.0.10' },
  credential: { authUrl: 'https://keystone.example.org:5000/v3', region: 'RegionOne', applicationCredentialId: 'app-cred-id', applicationCredentialSecret: 'app-cred-secret' },
  network: { subnetId: 'subnet-id' },
};

test('node names: <short name>-<group>-<suffix>', () => {
  assert.equal(nodeName(specOf({ cluster: { name: 'Prod Cluster' } }), 'worker', 'b0001'), 'prod-cluster-5d12f-worker-b0001');
});

test('renderCluster: the control planes\' KMS cloud.conf names the given key, or a placeholder offline; Ignition files end in .ign; no CA without one', () => {
  const spec = specOf({ labels: { barbican_kms_enabled: 'true' } });
  const kmsConf = (files: Record<string, string>, f: string) => ignitionFiles(files[f]!).get('/etc/kubernetes/barbican-kms/cloud.conf')?.content;
  const fcos = { image: { distro: 'fedora-coreos' as const, kubeVersion: null } };
  const keyed = renderCluster(spec, [], { ...material, ...fcos, kmsKeyId: '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0' });
  assert.deepEqual(Object.keys(keyed).filter((f) => f.startsWith('user-data/')), ['user-data/control-plane-init.ign', 'user-data/control-plane-join.ign', 'user-data/worker.ign']);
  for (const f of ['user-data/control-plane-init.ign', 'user-data/control-plane-join.ign']) assert.match(kmsConf(keyed, f)!, /\[KeyManager\]\nkey-id=0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0\n/, f);
  assert.equal(kmsConf(keyed, 'user-data/worker.ign'), undefined);
  assert.match(kmsConf(renderCluster(spec, [], { ...material, ...fcos }), 'user-data/control-plane-init.ign')!, /key-id=00000000-0000-0000-0000-000000000000/);
  const files = renderCluster(specOf(), ['Label x is unknown; it is kept and ignored.'], material);
  assert.equal(files['warnings.txt'], 'Label x is unknown; it is kept and ignored.\n');
  assert.deepEqual(Object.keys(files).filter((f) => f.startsWith('cloud-config/')), ['cloud-config/cloud.conf']);
});

