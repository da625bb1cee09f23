// What `kubeadm init` leaves in a new cluster: the system namespaces, the kubeadm-config and
// cluster-info ConfigMaps, the kubernetes and kube-dns Services, CoreDNS (a Deployment that waits
// for an initialised, Ready node) and kube-proxy (a DaemonSet on every node).
import { stringify } from 'yaml';
import type { Obj } from './store.js';

export interface InitFacts {
  clusterName: string;
  version: string;
  endpoint: string;
  serviceSubnet: string;
  podSubnet: string;
  dnsDomain: string;
  certSans: string[];
  caCert: string;
}

const meta = (name: string, namespace?: string, labels?: Record<string, string>) => ({ name, ...(namespace ? { namespace } : {}), ...(labels ? { labels } : {}) });

/** The n-th address of an IPv4 CIDR (10.254.0.0/16, 1 → 10.254.0.1); '' when not IPv4. */
export function nthAddress(cidr: string, n: number): string {
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/(\d+)$/.exec(cidr);
  if (!m) return '';
  const base = m.slice(1, 5).reduce((a, o) => a * 256 + Number(o), 0);
  const prefix = Number(m[5]);
  const net = prefix === 0 ? 0 : (base & (~0 << (32 - prefix))) >>> 0;
  const ip = net + n;
  return [24, 16, 8, 0].map((s) => (ip >>> s) & 255).join('.');
}

export function kubeadmObjects(f: InitFacts): Obj[] {
  const namespaces = ['default', 'kube-system', 'kube-public', 'kube-node-lease'].map((n) => ({
    apiVersion: 'v1', kind: 'Namespace', metadata: meta(n, undefined, { 'kubernetes.io/metadata.name': n }),
  }));
  const clusterConfiguration = {
    apiVersion: 'kubeadm.k8s.io/v1beta4',
    kind: 'ClusterConfiguration',
    clusterName: f.clusterName,
    kubernetesVersion: f.version,
    controlPlaneEndpoint: f.endpoint,
    networking: { serviceSubnet: f.serviceSubnet, podSubnet: f.podSubnet, dnsDomain: f.dnsDomain },
    apiServer: { certSANs: f.certSans },
  };
  const kubeconfig = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: '', cluster: { server: `https://${f.endpoint}`, 'certificate-authority-data': Buffer.from(f.caCert).toString('base64') } }],
    contexts: null,
    'current-context': '',
    preferences: {},
    users: null,
  };
  const dnsLabels = { 'k8s-app': 'kube-dns' };
  return [
    ...namespaces,
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('kubeadm-config', 'kube-system'), data: { ClusterConfiguration: stringify(clusterConfiguration) } },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('cluster-info', 'kube-public'), data: { kubeconfig: stringify(kubeconfig) } },
    {
      apiVersion: 'v1', kind: 'Service', metadata: meta('kubernetes', 'default', { component: 'apiserver', provider: 'kubernetes' }),
      spec: { type: 'ClusterIP', clusterIP: nthAddress(f.serviceSubnet, 1), ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }] },
    },
    {
      apiVersion: 'v1', kind: 'Service', metadata: meta('kube-dns', 'kube-system', dnsLabels),
      spec: { type: 'ClusterIP', clusterIP: nthAddress(f.serviceSubnet, 10), selector: dnsLabels, ports: [{ name: 'dns', port: 53, protocol: 'UDP' }, { name: 'dns-tcp', port: 53, protocol: 'TCP' }] },
    },
    {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: meta('coredns', 'kube-system', dnsLabels),
      spec: {
        replicas: 2,
        selector: { matchLabels: dnsLabels },
        template: {
          metadata: { labels: dnsLabels },
          spec: {
            priorityClassName: 'system-cluster-critical',
            nodeSelector: { 'kubernetes.io/os': 'linux' },
            tolerations: [{ key: 'CriticalAddonsOnly', operator: 'Exists' }, { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }],
            containers: [{ name: 'coredns', image: 'registry.k8s.io/coredns/coredns:v1.12.1' }],
          },
        },
      },
    },
    {
      apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: meta('kube-proxy', 'kube-system', { 'k8s-app': 'kube-proxy' }),
      spec: {
        selector: { matchLabels: { 'k8s-app': 'kube-proxy' } },
        template: {
          metadata: { labels: { 'k8s-app': 'kube-proxy' } },
          spec: {
            hostNetwork: true,
            priorityClassName: 'system-node-critical',
            nodeSelector: { 'kubernetes.io/os': 'linux' },
            tolerations: [{ operator: 'Exists' }],
            containers: [{ name: 'kube-proxy', image: `registry.k8s.io/kube-proxy:${f.version}` }],
          },
        },
      },
    },
  ] as Obj[];
}
