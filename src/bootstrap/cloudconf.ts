// cloud.conf for OCCM and Cinder CSI (one file, INI/gcfg), plus the in-cluster identity values the add-on
// manifests need (OCCM --cluster-name, CSI --cluster = cluster UUID).

import type { ClusterSpec } from '../cluster-spec/types.js';

export interface CloudCredential {
  authUrl: string;
  region: string;
  applicationCredentialId: string;
  applicationCredentialSecret: string;
  /** PEM bundle of the Keystone CA, when the cloud uses a private CA (mounted next to cloud.conf). */
  caCertPem?: string;
}

export interface CloudNetwork {
  /** External network for Service floating IPs (the template's external_network_id, resolved to an id). */
  floatingNetworkId?: string;
  /** Cluster subnet: VIP and member subnet of Service LBs. */
  subnetId: string;
  /** Cluster network name: its addresses become the nodes' InternalIP. */
  networkName?: string;
}

export interface CloudConfigOutput {
  /** Data of Secret kube-system/cloud-config (mounted at /etc/config). */
  secretData: Record<string, string>;
  occm: { clusterName: string; image: string };
  cinderCsi: { cluster: string; image: string };
  /** The same credential and network as structured values, for add-ons whose config is not cloud.conf. */
  credential: CloudCredential;
  network: CloudNetwork;
}

export const CLOUD_CONFIG_DIR = '/etc/config';

/** gcfg value: bare when safe, else double-quoted with \\ and \" escaped. */
export function iniValue(v: string | boolean | number): string {
  const s = String(v);
  if (/[\n\r\u0000]/.test(s)) throw new Error('cloud.conf values cannot contain line breaks');
  return /^[A-Za-z0-9._:/@+=,~-]+$/.test(s) ? s : `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

function section(name: string, entries: [string, string | boolean | number | undefined][]): string {
  const lines = entries.filter(([, v]) => v !== undefined && v !== '').map(([k, v]) => `${k}=${iniValue(v!)}`);
  return `[${name}]\n${lines.join('\n')}\n`;
}

export function renderCloudConf(spec: ClusterSpec, cred: CloudCredential, net: CloudNetwork): string {
  const o = spec.octavia;
  const parts = [
    section('Global', [
      ['auth-url', cred.authUrl],
      ['region', cred.region],
      ['application-credential-id', cred.applicationCredentialId],
      ['application-credential-secret', cred.applicationCredentialSecret],
      ['ca-file', cred.caCertPem ? `${CLOUD_CONFIG_DIR}/ca.crt` : undefined],
    ]),
    section('LoadBalancer', [
      ['floating-network-id', net.floatingNetworkId],
      ['subnet-id', net.subnetId],
      ['lb-provider', o.provider],
      ['lb-method', o.algorithm],
      ['create-monitor', o.healthCheck],
      ...(o.healthCheck
        ? ([
            ['monitor-delay', '5s'],
            ['monitor-timeout', '3s'],
            ['monitor-max-retries', 1],
          ] as [string, string | number][])
        : []),
      ['cascade-delete', true],
    ]),
    section('Networking', [['internal-network-name', net.networkName]]),
    section('BlockStorage', [['ignore-volume-az', true]]),
  ];
  return parts.filter((p) => p.includes('=')).join('\n');
}

export function renderCloudConfig(spec: ClusterSpec, cred: CloudCredential, net: CloudNetwork): CloudConfigOutput {
  for (const [k, v] of Object.entries({ authUrl: cred.authUrl, region: cred.region, applicationCredentialId: cred.applicationCredentialId, applicationCredentialSecret: cred.applicationCredentialSecret, subnetId: net.subnetId })) {
    if (!v) throw new Error(`cloud.conf: ${k} is required`);
  }
  const secretData: Record<string, string> = { 'cloud.conf': renderCloudConf(spec, cred, net) };
  if (cred.caCertPem) secretData['ca.crt'] = cred.caCertPem;
  const repo = spec.kubernetes.imageRepository || 'registry.k8s.io/provider-os';
  return {
    secretData,
    occm: { clusterName: spec.cloudProvider.clusterName, image: `${repo}/openstack-cloud-controller-manager:${spec.cloudProvider.occmTag}` },
    cinderCsi: { cluster: spec.cloudProvider.clusterName, image: `${repo}/cinder-csi-plugin:${spec.cloudProvider.cinderCsiTag}` },
    credential: { ...cred },
    network: { ...net },
  };
}
