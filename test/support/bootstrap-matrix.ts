// Every node rendering the service can produce, for the checks that run the real tools over them
// (cloud-init schema, ignition-validate, Ignition's JSON schema, shellcheck): Kubernetes minors ×
// CNIs × roles × distros × images (stock: installs at boot; prebuilt: kube_version; install
// disabled) × add-on sets (plain; everything on with KMS, proxy, mirror, volumes, node labels and taints).
import type { NodeImage, NodeDistro } from '../../src/cluster-spec/image.js';
import { NODE_ROLES, type NodeRole, type UserDataInput } from '../../src/bootstrap/user-data/inputs.js';
import { renderUserData } from '../../src/bootstrap/user-data/userdata.js';
import { kmsCloudConf } from '../../src/features/kms/render.js';
import { groupNodeLabels } from '../../src/cluster-spec/node-labels.js';
import { parseClusterSpec } from '../../src/cluster-spec/parse.js';
import { SUPPORTED_MINORS, VERSION_MATRIX, type KubeMinor } from '../../src/cluster-spec/versions.js';
import { input, pki, TOKEN } from './spec-fixtures.js';

export type ImageKind = 'stock' | 'prebuilt' | 'no-install';
export type AddonSet = 'plain' | 'all';

export interface Rendering {
  name: string;
  minor: KubeMinor;
  cni: 'calico' | 'flannel';
  role: NodeRole;
  distro: NodeDistro;
  image: ImageKind;
  addons: AddonSet;
  userData: string;
}

const ALL_ON = {
  barbican_kms_enabled: 'true', monitoring_enabled: 'true', ingress_controller: 'octavia', external_dns_zone: 'apps.example.org', kube_dashboard_enabled: 'true',
  manila_csi_enabled: 'true', container_infra_prefix: 'mirror.example.org:5000/k8s', etcd_volume_size: '10', boot_volume_size: '40', docker_volume_type: 'fast',
};
const KMS = { cloudConf: kmsCloudConf({ authUrl: 'https://keystone.example.org:5000/v3', region: 'RegionOne', applicationCredentialId: 'id', applicationCredentialSecret: 's' }, '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0') };

export function render(minor: KubeMinor, cni: 'calico' | 'flannel', role: NodeRole, distro: NodeDistro, kind: ImageKind, addons: AddonSet): Rendering {
  const version = VERSION_MATRIX[minor].kubernetes;
  const { spec } = parseClusterSpec(input({
    network_driver: cni,
    labels: { kube_tag: version, ...(kind === 'no-install' ? { kube_install_at_boot: 'false' } : {}), ...(addons === 'all' ? ALL_ON : {}) },
    ...(addons === 'all' ? { template: { http_proxy: "http://proxy.example.org:3128", https_proxy: 'http://proxy.example.org:3128', no_proxy: 'internal.example.org' }, cluster: { docker_volume_size: 30 } } : {}),
  }));
  const image: NodeImage = { distro, kubeVersion: kind === 'prebuilt' ? version : null };
  const name = `${minor}-${cni}-${role}-${distro}-${kind}-${addons}`;
  const common = {
    endpoint: { address: '10.0.0.10', extraSans: ['203.0.113.25', 'k1.example.org'] },
    bootstrapToken: TOKEN,
    nodeName: `${spec.cluster.shortName}-${role}-x1`,
    image,
    nodeLabels: groupNodeLabels({ name: role === 'worker' ? 'gpu-pool' : 'default-master', role: role === 'worker' ? 'worker' : 'master' }, addons === 'all' && role === 'worker' ? { 'example.org/tier': 'gpu', 'node.kubernetes.io/pool': 'a' } : null),
    ...(addons === 'all' && role === 'worker' ? { nodeTaints: [{ key: 'example.org/gpu', value: 'true', effect: 'NoSchedule' as const }] } : {}),
  };
  const i = (role === 'worker' ? { ...common, role, caCert: pki.ca.cert } : { ...common, role, pki, ...(addons === 'all' ? { kms: KMS } : {}) }) as UserDataInput;
  return { name, minor, cni, role, distro, image: kind, addons, userData: renderUserData(spec, i) };
}

/** The whole matrix (216 renderings). */
export function matrix(): Rendering[] {
  const out: Rendering[] = [];
  for (const minor of SUPPORTED_MINORS) {
    for (const cni of ['calico', 'flannel'] as const) {
      for (const role of NODE_ROLES) {
        for (const distro of ['ubuntu', 'fedora-coreos'] as const) {
          for (const kind of ['stock', 'prebuilt', 'no-install'] as const) {
            for (const addons of ['plain', 'all'] as const) out.push(render(minor, cni, role, distro, kind, addons));
          }
        }
      }
    }
  }
  return out;
}

/** A pool of `size` parallel workers over `items`. */
export async function pool<T>(items: T[], size: number, fn: (t: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(Array.from({ length: size }, async () => {
    for (let t = queue.shift(); t !== undefined; t = queue.shift()) await fn(t);
  }));
}
