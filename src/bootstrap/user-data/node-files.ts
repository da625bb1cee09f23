// What one node needs on its disk, whatever reads its user-data: host settings, the control
// plane's PKI and add-on files, the kubeadm configuration, the bootstrap script, the units a node
// that installs at boot copies in, and its volumes. cloud-config.ts and ignition.ts lay the same
// files down in their own formats.

import { stringify } from 'yaml';
import { apiServerExtensions } from '../addons/framework.js';
import { addons } from '../addons/index.js';
import type { NodeImage } from '../../cluster-spec/image.js';
import { ENCRYPTION_CONFIG_PATH, encryptionConfiguration, KMS_CONFIG_DIR, KMS_MANIFEST_PATH, kmsStaticPod } from '../../features/kms/render.js';
import type { ControlPlanePki } from '../join.js';
import type { ClusterSpec } from '../../cluster-spec/types.js';
import { bootstrapScript, installsAtBoot } from './bootstrap.js';
import { nodeDisks, type NodeDisk } from './disks.js';
import { containerdConfig, containerdProxy, KUBEADM_CONFIG_PATH, MODULES_LOAD, SYSCTL } from './host.js';
import type { UserDataInput } from './inputs.js';
import { endpointHostPort, kubeadmDocuments } from './kubeadm.js';
import { BOOTSTRAP_SCRIPT_PATH, containerdUnit, kubeletKubeadmDropIn, kubeletUnit, UNIT_FILES } from './units.js';

export interface NodeFile {
  path: string;
  content: string;
  /** Octal, as cloud-init writes it ('0644'). */
  permissions: string;
}

export interface NodeConfig {
  hostname: string;
  image: NodeImage;
  files: NodeFile[];
  disks: NodeDisk[];
}

export const DEFAULT_IMAGE: NodeImage = { distro: 'ubuntu', kubeVersion: null };

const file = (path: string, content: string, permissions = '0644'): NodeFile => ({ path, content, permissions });

function pkiFiles(p: ControlPlanePki): NodeFile[] {
  const dir = '/etc/kubernetes/pki';
  return [
    file(`${dir}/ca.crt`, p.ca.cert),
    file(`${dir}/ca.key`, p.ca.key, '0600'),
    file(`${dir}/etcd/ca.crt`, p.etcdCa.cert),
    file(`${dir}/etcd/ca.key`, p.etcdCa.key, '0600'),
    file(`${dir}/front-proxy-ca.crt`, p.frontProxyCa.cert),
    file(`${dir}/front-proxy-ca.key`, p.frontProxyCa.key, '0600'),
    file(`${dir}/sa.key`, p.serviceAccount.key, '0600'),
    file(`${dir}/sa.pub`, p.serviceAccount.pub),
  ];
}

/** Control planes of a cluster with Barbican KMS: the encryption config, the plugin's static pod and its cloud.conf. */
function kmsFiles(spec: ClusterSpec, input: UserDataInput): NodeFile[] {
  if (input.role === 'worker') return [];
  if (spec.kms.enabled !== (input.kms !== undefined)) throw new Error(`control plane ${input.nodeName}: the KMS material must be given exactly when barbican_kms_enabled is set`);
  if (!input.kms) return [];
  return [
    file(ENCRYPTION_CONFIG_PATH, encryptionConfiguration(), '0600'),
    file(`${KMS_CONFIG_DIR}/cloud.conf`, input.kms.cloudConf, '0600'),
    ...(input.kms.caCert ? [file(`${KMS_CONFIG_DIR}/ca.crt`, input.kms.caCert)] : []),
    file(KMS_MANIFEST_PATH, kmsStaticPod(spec), '0600'),
  ];
}

export function kubeadmConfigYaml(spec: ClusterSpec, input: UserDataInput): string {
  return kubeadmDocuments(spec, input)
    .map((d) => stringify(d, { lineWidth: 0 }))
    .join('---\n');
}

/** The node's files and volumes. Workers never receive CA keys (only the CA hash). */
export function nodeConfig(spec: ClusterSpec, input: UserDataInput): NodeConfig {
  const image = input.image ?? DEFAULT_IMAGE;
  const runtime = input.runtimeVolume === undefined ? spec.nodes.runtimeVolume : input.runtimeVolume;
  const disks = nodeDisks(input.role, spec.nodes.etcdVolume, runtime);
  const files: NodeFile[] = [
    file('/etc/modules-load.d/kubernetes.conf', MODULES_LOAD),
    file('/etc/sysctl.d/99-kubernetes.conf', SYSCTL),
    file('/etc/containerd/config.toml', containerdConfig(spec)),
  ];
  const proxy = containerdProxy(spec, input.endpoint.address);
  if (proxy) files.push(file('/etc/systemd/system/containerd.service.d/http-proxy.conf', proxy));
  if (input.role !== 'worker') {
    files.push(...pkiFiles(input.pki));
    // every control plane runs an apiserver from the same ClusterConfiguration: each needs the add-ons' files
    for (const f of apiServerExtensions(addons(), spec).files) files.push(file(f.path, f.content, f.permissions ?? '0600'));
  }
  files.push(...kmsFiles(spec, input));
  files.push(file(KUBEADM_CONFIG_PATH, kubeadmConfigYaml(spec, input), '0600'));
  if (installsAtBoot(spec, image)) {
    files.push(file(UNIT_FILES.containerd, containerdUnit()));
    if (image.distro !== 'ubuntu') files.push(file(UNIT_FILES.kubelet, kubeletUnit()), file(UNIT_FILES.kubeletKubeadm, kubeletKubeadmDropIn()));
  }
  const script = bootstrapScript(spec, {
    role: input.role,
    nodeName: input.nodeName,
    image,
    endpoint: endpointHostPort(spec, input.endpoint),
    endpointAddress: input.endpoint.address,
    token: input.bootstrapToken,
    disks,
  });
  files.push(file(BOOTSTRAP_SCRIPT_PATH, script, '0700'));
  return { hostname: input.nodeName, image, files, disks };
}
