// Host plumbing of every node: kernel modules, sysctls, containerd 2.x config, the proxy.

import type { ClusterSpec } from '../../cluster-spec/types.js';
import { pauseImage } from './kubeadm.js';

export const KUBEADM_CONFIG_PATH = '/etc/kubernetes/kubeadm/config.yaml';
/** The join token, for a joining control plane's wait for its turn (a secret: fetched with the node's material). */
export const BOOTSTRAP_TOKEN_PATH = '/etc/kubernetes/kubeadm/bootstrap-token';

export const MODULES_LOAD = 'overlay\nbr_netfilter\n';

export const SYSCTL = [
  'net.ipv4.ip_forward = 1',
  'net.bridge.bridge-nf-call-iptables = 1',
  'net.bridge.bridge-nf-call-ip6tables = 1',
  '',
].join('\n');

/** containerd 2.x (config version 3): systemd cgroups, pinned sandbox image. */
export function containerdConfig(spec: ClusterSpec): string {
  return [
    'version = 3',
    '',
    "[plugins.'io.containerd.cri.v1.images'.pinned_images]",
    `  sandbox = '${pauseImage(spec)}'`,
    '',
    "[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]",
    '  SystemdCgroup = true',
    '',
  ].join('\n');
}

/** The template's proxy with the cluster's own ranges (and the API endpoint) kept out of it; null when it sets none. */
export function nodeProxy(spec: ClusterSpec, endpointAddress: string): { http: string; https: string; noProxy: string } | null {
  const p = spec.network.proxy;
  if (!p) return null;
  const noProxy = [
    ...new Set([
      ...p.noProxy,
      'localhost',
      '127.0.0.1',
      endpointAddress,
      spec.network.subnetCidr,
      spec.network.podCidr,
      spec.network.serviceCidr,
      `.svc`,
      `.${spec.network.clusterDomain}`,
    ]),
  ].join(',');
  return { http: p.http, https: p.https, noProxy };
}

/** A value inside a double-quoted systemd setting: `%` is a specifier (`%%`), `\\` and `"` escaped. */
export const systemdQuoted = (v: string): string => v.replace(/[\\"]/g, '\\$&').replace(/%/g, '%%');

/** systemd drop-in for containerd when the template sets a proxy; cluster-internal ranges bypass it. */
export function containerdProxy(spec: ClusterSpec, endpointAddress: string): string | null {
  const p = nodeProxy(spec, endpointAddress);
  if (!p) return null;
  const lines = ['[Service]'];
  const env = (name: string, value: string) => `Environment="${systemdQuoted(`${name}=${value}`)}"`;
  if (p.http) lines.push(env('HTTP_PROXY', p.http));
  if (p.https) lines.push(env('HTTPS_PROXY', p.https));
  lines.push(env('NO_PROXY', p.noProxy), '');
  return lines.join('\n');
}

/** The ConfigMap (kube-system) naming the one control plane allowed to join now; the service writes it. */
export const JOIN_TURN_CONFIGMAP = 'magnum-join-turn';
