// The control-plane files of Barbican KMS encryption (modules/kms.ts): kube-apiserver's EncryptionConfiguration
// (KMS v2 for Secrets, then identity so Secrets written before stay readable), the plugin's static pod, and its
// cloud.conf ([Global] credential, [KeyManager] key-id). The first two are spec data; the cloud.conf holds the
// credential and the key id, and is only rendered for control-plane user-data.

import { stringify } from 'yaml';
import type { K8sObject } from '../../bootstrap/addons/framework.js';
import { iniValue, type CloudCredential } from '../../bootstrap/cloudconf.js';
import { hostSyncObjects, sha256 } from '../../bootstrap/host-sync.js';
import type { ClusterSpec } from '../../cluster-spec/types.js';

export const KMS_SOCKET_DIR = '/var/lib/kms';
export const KMS_CONFIG_DIR = '/etc/kubernetes/barbican-kms';
export const ENCRYPTION_CONFIG_DIR = '/etc/kubernetes/encryption';
export const ENCRYPTION_CONFIG_PATH = `${ENCRYPTION_CONFIG_DIR}/config.yaml`;
export const KMS_MANIFEST_PATH = '/etc/kubernetes/manifests/barbican-kms.yaml';

export function encryptionConfiguration(): string {
  return stringify({
    apiVersion: 'apiserver.config.k8s.io/v1',
    kind: 'EncryptionConfiguration',
    resources: [
      {
        resources: ['secrets'],
        providers: [{ kms: { apiVersion: 'v2', name: 'barbican', endpoint: `unix://${KMS_SOCKET_DIR}/kms.sock`, timeout: '3s' } }, { identity: {} }],
      },
    ],
  });
}

/**
 * The plugin as a static pod: kubelet starts it beside the apiserver, on the host network (it reaches
 * Keystone and Barbican). `annotations` (a replaced cloud.conf's checksum) make the manifest change, so
 * that kubelet restarts the plugin, which reads its cloud.conf again.
 */
export function kmsStaticPod(spec: ClusterSpec, annotations?: Record<string, string>): string {
  return stringify(
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'barbican-kms', namespace: 'kube-system', labels: { component: 'barbican-kms', tier: 'control-plane' }, ...(annotations ? { annotations } : {}) },
      spec: {
        hostNetwork: true,
        priorityClassName: 'system-node-critical',
        containers: [
          {
            name: 'barbican-kms',
            image: spec.kms.image,
            args: ['/bin/barbican-kms-plugin', `--socketpath=${KMS_SOCKET_DIR}/kms.sock`, `--cloud-config=${KMS_CONFIG_DIR}/cloud.conf`],
            resources: { requests: { cpu: '10m', memory: '32Mi' } },
            volumeMounts: [
              { name: 'socket', mountPath: KMS_SOCKET_DIR },
              { name: 'config', mountPath: KMS_CONFIG_DIR, readOnly: true },
            ],
          },
        ],
        volumes: [
          { name: 'socket', hostPath: { path: KMS_SOCKET_DIR, type: 'DirectoryOrCreate' } },
          { name: 'config', hostPath: { path: KMS_CONFIG_DIR, type: 'Directory' } },
        ],
      },
    },
    { lineWidth: 0 },
  );
}

/** kube-apiserver's flag and mounts (the ClusterConfiguration of the first control plane; joins reuse it). */
export function kmsApiServer(): { extraArgs: { name: string; value: string }[]; volumes: Record<string, unknown>[] } {
  return {
    extraArgs: [{ name: 'encryption-provider-config', value: ENCRYPTION_CONFIG_PATH }],
    volumes: [
      { name: 'encryption-config', hostPath: ENCRYPTION_CONFIG_DIR, mountPath: ENCRYPTION_CONFIG_DIR, readOnly: true, pathType: 'DirectoryOrCreate' },
      { name: 'kms-socket', hostPath: KMS_SOCKET_DIR, mountPath: KMS_SOCKET_DIR, readOnly: false, pathType: 'DirectoryOrCreate' },
    ],
  };
}

/** The plugin's cloud.conf: the cluster's credential and the Barbican secret (the key) it wraps data keys with. */
export function kmsCloudConf(cred: CloudCredential, keyId: string): string {
  const global = [
    ['auth-url', cred.authUrl],
    ['region', cred.region],
    ['application-credential-id', cred.applicationCredentialId],
    ['application-credential-secret', cred.applicationCredentialSecret],
    ...(cred.caCertPem ? [['ca-file', `${KMS_CONFIG_DIR}/ca.crt`]] : []),
  ];
  return `[Global]\n${global.map(([k, v]) => `${k}=${iniValue(v!)}`).join('\n')}\n\n[KeyManager]\nkey-id=${iniValue(keyId)}\n`;
}

export const KMS_CONFIG_PATH = `${KMS_CONFIG_DIR}/cloud.conf`;
/** The mirror pod of the plugin on control plane `node`. */
export const kmsMirrorPod = (node: string): string => `barbican-kms-${node}`;
/** The annotation of the plugin's manifest naming the cloud.conf it reads. */
export const KMS_CONF_CHECKSUM = 'checksum/cloud-config';

/**
 * A new credential for the plugins of the running control planes: the agent (host-sync.ts) writes the
 * new cloud.conf, then the manifest annotated with its checksum (kubelet restarts the plugin).
 * `checksum` is what each control plane's barbican-kms mirror pod carries once its plugin reads it.
 */
export function kmsCredentialSync(spec: ClusterSpec, cred: CloudCredential, keyId: string): { objects: K8sObject[]; checksum: string } {
  const conf = kmsCloudConf(cred, keyId);
  const checksum = sha256(conf);
  const objects = hostSyncObjects({
    name: KMS_SYNC_NAME,
    image: spec.kms.agentImage,
    files: [
      ...(cred.caCertPem ? [{ path: `${KMS_CONFIG_DIR}/ca.crt`, content: cred.caCertPem }] : []),
      { path: KMS_CONFIG_PATH, content: conf },
      { path: KMS_MANIFEST_PATH, content: kmsStaticPod(spec, { [KMS_CONF_CHECKSUM]: checksum }) },
    ],
  });
  return { objects, checksum };
}

/** The agent's DaemonSet and Secret (kube-system). */
export const KMS_SYNC_NAME = 'barbican-kms-credential';
