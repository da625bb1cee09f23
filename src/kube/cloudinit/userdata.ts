// Assembles one node's #cloud-config user-data and checks it against Nova's size limit.

import { stringify } from 'yaml';
import { apiServerExtensions } from '../addons/framework.js';
import { ADDONS } from '../addons/index.js';
import { ENCRYPTION_CONFIG_PATH, encryptionConfiguration, KMS_CONFIG_DIR, KMS_MANIFEST_PATH, kmsStaticPod } from '../kms.js';
import { assertBootstrapToken, assertCertificate, assertControlPlanePki, type ControlPlanePki } from '../pki.js';
import type { ClusterSpec } from '../spec/types.js';
import {
  BOOTSTRAP_SCRIPT_PATH,
  bootstrapScript,
  containerdConfig,
  containerdProxy,
  KUBEADM_CONFIG_PATH,
  MODULES_LOAD,
  SYSCTL,
} from './host.js';
import { NOVA_USER_DATA_LIMIT, type UserDataInput } from './inputs.js';
import { endpointHostPort, kubeadmDocuments } from './kubeadm.js';

interface WriteFile {
  path: string;
  content: string;
  owner: string;
  permissions: string;
}

const file = (path: string, content: string, permissions = '0644'): WriteFile => ({
  path,
  content,
  owner: 'root:root',
  permissions,
});

const NODE_NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const HOST = /^([0-9]{1,3}(\.[0-9]{1,3}){3}|[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*)$/;

export function validateUserDataInput(input: UserDataInput): void {
  if (!NODE_NAME.test(input.nodeName)) throw new Error(`node name ${input.nodeName} is not a lowercase RFC 1123 label (≤63)`);
  for (const h of [input.endpoint.address, ...(input.endpoint.extraSans ?? [])]) {
    if (!HOST.test(h)) throw new Error(`API endpoint name ${h} is not an IPv4 address or DNS name`);
  }
  assertBootstrapToken(input.bootstrapToken);
  if (input.role === 'worker') assertCertificate(input.caCert, 'ca');
  else assertControlPlanePki(input.pki);
}

/** Control planes of a cluster with Barbican KMS: the encryption config, the plugin's static pod and its cloud.conf. */
function kmsFiles(spec: ClusterSpec, input: UserDataInput): WriteFile[] {
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

function pkiFiles(p: ControlPlanePki): WriteFile[] {
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

export function kubeadmConfigYaml(spec: ClusterSpec, input: UserDataInput): string {
  return kubeadmDocuments(spec, input)
    .map((d) => stringify(d, { lineWidth: 0 }))
    .join('---\n');
}

/** The `#cloud-config` document for one node. Workers never receive CA keys (only the CA hash). */
export function renderUserData(spec: ClusterSpec, input: UserDataInput): string {
  validateUserDataInput(input);
  const files: WriteFile[] = [
    file('/etc/modules-load.d/kubernetes.conf', MODULES_LOAD),
    file('/etc/sysctl.d/99-kubernetes.conf', SYSCTL),
    file('/etc/containerd/config.toml', containerdConfig(spec)),
  ];
  const proxy = containerdProxy(spec, input.endpoint.address);
  if (proxy) files.push(file('/etc/systemd/system/containerd.service.d/http-proxy.conf', proxy));
  if (input.role !== 'worker') {
    files.push(...pkiFiles(input.pki));
    // every control plane runs an apiserver from the same ClusterConfiguration: each needs the add-ons' files
    for (const f of apiServerExtensions(ADDONS, spec).files) files.push(file(f.path, f.content, f.permissions ?? '0600'));
  }
  files.push(...kmsFiles(spec, input));
  files.push(file(KUBEADM_CONFIG_PATH, kubeadmConfigYaml(spec, input), '0600'));
  const endpoint = endpointHostPort(spec, input.endpoint);
  files.push(file(BOOTSTRAP_SCRIPT_PATH, bootstrapScript(spec, input.role, input.nodeName, { endpoint, token: input.bootstrapToken }), '0700'));

  const etcd = input.role !== 'worker' ? spec.nodes.etcdVolume : null;
  const doc = {
    hostname: input.nodeName,
    preserve_hostname: false,
    prefer_fqdn_over_hostname: false,
    ...(etcd ? etcdVolumeSetup() : {}),
    write_files: files,
    runcmd: [...(etcd ? [ETCD_DIR_EMPTY] : []), [BOOTSTRAP_SCRIPT_PATH]],
  };
  const out = `#cloud-config\n${stringify(doc, { lineWidth: 0 })}`;
  const size = base64Size(out);
  if (size > NOVA_USER_DATA_LIMIT) {
    throw new Error(`user-data for ${input.nodeName} is ${size} bytes in base64, over Nova's ${NOVA_USER_DATA_LIMIT}`);
  }
  return out;
}

/**
 * The etcd volume (the control plane's first extra disk, /dev/vdb behind the root disk, whether that is
 * the image's or a boot volume): partitioned, formatted ext4 with label etcd, and mounted at
 * /var/lib/etcd, once (overwrite false: a rebooted node keeps its data) — cloud-init does it in its
 * init stage, before runcmd runs kubeadm.
 */
function etcdVolumeSetup(): Record<string, unknown> {
  return {
    disk_setup: { '/dev/vdb': { table_type: 'gpt', layout: true, overwrite: false } },
    fs_setup: [{ label: 'etcd', filesystem: 'ext4', device: '/dev/vdb', partition: 'auto', overwrite: false }],
    mounts: [['LABEL=etcd', '/var/lib/etcd', 'ext4', 'defaults,nofail,x-systemd.device-timeout=120', '0', '2']],
  };
}

/** kubeadm's preflight wants /var/lib/etcd empty: a new filesystem holds lost+found. */
const ETCD_DIR_EMPTY = ['sh', '-c', 'rmdir /var/lib/etcd/lost+found 2>/dev/null || true'];

export function base64Size(userData: string): number {
  return Math.ceil(Buffer.byteLength(userData, 'utf8') / 3) * 4;
}
