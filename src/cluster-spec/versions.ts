// The one table of pinned component versions per Kubernetes minor (spec k8s-bootstrap §8).
// Everything version-coupled (OCCM, Cinder CSI, pause image, CNI, containerd expectation) is read from here.

export const SUPPORTED_MINORS = ['1.34', '1.35', '1.36'] as const;
export type KubeMinor = (typeof SUPPORTED_MINORS)[number];
export const DEFAULT_MINOR: KubeMinor = '1.35';

export interface VersionRow {
  /** Patch release used when `kube_tag` is not given. */
  kubernetes: string;
  /** containerd 2.x: what a node without it installs at boot (github.com/containerd/containerd releases; major 2 is checked on boot). */
  containerd: string;
  /** runc installed beside containerd at boot (github.com/opencontainers/runc releases). */
  runc: string;
  /** CNI reference plugins (containernetworking/plugins) a node without a package manager installs into /opt/cni/bin. */
  cniPlugins: string;
  /** crictl (kubernetes-sigs/cri-tools), released per Kubernetes minor. */
  crictl: string;
  pause: string;
  /** registry.k8s.io/provider-os/* tag: same release train as the Kubernetes minor. */
  cloudProvider: string;
  cinderCsi: string;
  calico: string;
  flannel: string;
  flannelCniPlugin: string;
  /** quay.io/tigera/operator release that deploys `calico` (the operator pins the Calico version). */
  tigeraOperator: string;
  /** CSI sidecars (registry.k8s.io/sig-storage), from the CPO release of the row. */
  csiAttacher: string;
  csiProvisioner: string;
  csiSnapshotter: string;
  csiResizer: string;
  csiLivenessProbe: string;
  csiNodeDriverRegistrar: string;
  metricsServer: string;
  /** registry.k8s.io/cpa/cluster-proportional-autoscaler, scaling CoreDNS (not tied to the minor). */
  dnsAutoscaler: string;
  /** registry.k8s.io/provider-os/k8s-keystone-auth: CPO release train of the minor (same tag as OCCM). */
  k8sKeystoneAuth: string;
  /** registry.k8s.io/provider-os/octavia-ingress-controller: CPO release train of the minor. */
  octaviaIngressController: string;
  /** registry.k8s.io/sig-storage/nfsplugin (csi-driver-nfs), the node plugin Manila CSI forwards NFS mounts to. */
  nfsCsi: string;
  /** registry.k8s.io/external-dns/external-dns (not tied to the minor). */
  externalDns: string;
  /** The monitoring add-on (not tied to the minor): quay.io/prometheus/prometheus, quay.io/prometheus/node-exporter, registry.k8s.io/kube-state-metrics, docker.io/grafana/grafana. */
  prometheus: string;
  nodeExporter: string;
  kubeStateMetrics: string;
  grafana: string;
  /** ghcr.io/headlamp-k8s/headlamp: SIG UI's web UI, the successor of the archived Kubernetes dashboard (not tied to the minor). */
  headlamp: string;
  /** docker.io/library/busybox: the shell of the service's small node agents (a control plane's files replaced; not tied to the minor). */
  busybox: string;
}

export const VERSION_MATRIX: Readonly<Record<KubeMinor, Readonly<VersionRow>>> = {
  '1.34': {
    kubernetes: 'v1.34.8',
    containerd: 'v2.2.1',
    runc: 'v1.3.4',
    cniPlugins: 'v1.7.1',
    crictl: 'v1.34.0',
    pause: '3.10.1',
    cloudProvider: 'v1.34.1',
    cinderCsi: 'v1.34.1',
    calico: 'v3.31.3',
    flannel: 'v0.27.4',
    flannelCniPlugin: 'v1.8.0-flannel1',
    tigeraOperator: 'v1.40.3',
    csiAttacher: 'v4.10.0',
    csiProvisioner: 'v5.3.0',
    csiSnapshotter: 'v8.4.0',
    csiResizer: 'v1.14.0',
    csiLivenessProbe: 'v2.17.0',
    csiNodeDriverRegistrar: 'v2.15.0',
    metricsServer: 'v0.8.0',
    dnsAutoscaler: 'v1.9.0',
    k8sKeystoneAuth: 'v1.34.1',
    octaviaIngressController: 'v1.34.1',
    nfsCsi: 'v4.11.0',
    externalDns: 'v0.19.0',
    prometheus: 'v3.5.0',
    nodeExporter: 'v1.9.1',
    kubeStateMetrics: 'v2.16.0',
    grafana: '12.1.0',
    headlamp: 'v0.43.0',
    busybox: '1.37.0',
  },
  '1.35': {
    kubernetes: 'v1.35.5',
    containerd: 'v2.2.1',
    runc: 'v1.3.4',
    cniPlugins: 'v1.7.1',
    crictl: 'v1.35.0',
    pause: '3.10.1',
    cloudProvider: 'v1.35.0',
    cinderCsi: 'v1.35.0',
    calico: 'v3.31.3',
    flannel: 'v0.27.4',
    flannelCniPlugin: 'v1.8.0-flannel1',
    tigeraOperator: 'v1.40.3',
    csiAttacher: 'v4.10.0',
    csiProvisioner: 'v5.3.0',
    csiSnapshotter: 'v8.4.0',
    csiResizer: 'v1.14.0',
    csiLivenessProbe: 'v2.17.0',
    csiNodeDriverRegistrar: 'v2.15.0',
    metricsServer: 'v0.8.0',
    dnsAutoscaler: 'v1.9.0',
    k8sKeystoneAuth: 'v1.35.0',
    octaviaIngressController: 'v1.35.0',
    nfsCsi: 'v4.11.0',
    externalDns: 'v0.19.0',
    prometheus: 'v3.5.0',
    nodeExporter: 'v1.9.1',
    kubeStateMetrics: 'v2.16.0',
    grafana: '12.1.0',
    headlamp: 'v0.43.0',
    busybox: '1.37.0',
  },
  '1.36': {
    kubernetes: 'v1.36.1',
    containerd: 'v2.2.1',
    runc: 'v1.3.4',
    cniPlugins: 'v1.7.1',
    crictl: 'v1.36.0',
    pause: '3.10.1',
    cloudProvider: 'v1.36.0',
    cinderCsi: 'v1.36.0',
    calico: 'v3.31.3',
    flannel: 'v0.27.4',
    flannelCniPlugin: 'v1.8.0-flannel1',
    tigeraOperator: 'v1.40.3',
    csiAttacher: 'v4.10.0',
    csiProvisioner: 'v5.3.0',
    csiSnapshotter: 'v8.4.0',
    csiResizer: 'v1.14.0',
    csiLivenessProbe: 'v2.17.0',
    csiNodeDriverRegistrar: 'v2.15.0',
    metricsServer: 'v0.8.0',
    dnsAutoscaler: 'v1.9.0',
    k8sKeystoneAuth: 'v1.36.0',
    octaviaIngressController: 'v1.36.0',
    nfsCsi: 'v4.11.0',
    externalDns: 'v0.19.0',
    prometheus: 'v3.5.0',
    nodeExporter: 'v1.9.1',
    kubeStateMetrics: 'v2.16.0',
    grafana: '12.1.0',
    headlamp: 'v0.43.0',
    busybox: '1.37.0',
  },
};

export interface ResolvedVersion {
  minor: KubeMinor;
  /** Exact `vMAJOR.MINOR.PATCH` given to kubeadm. */
  kubernetes: string;
  components: Readonly<VersionRow>;
}

const TAG = /^v1\.(\d{1,3})\.(\d{1,3})$/;

/** `v1.35.2` → the 1.35 row with kubernetes=v1.35.2; undefined → the default minor. Throws a reason string otherwise. */
export function resolveKubeTag(tag: string | undefined): ResolvedVersion {
  if (tag === undefined) {
    const row = VERSION_MATRIX[DEFAULT_MINOR];
    return { minor: DEFAULT_MINOR, kubernetes: row.kubernetes, components: row };
  }
  const m = TAG.exec(tag);
  if (!m) throw new Error(`Expected a Kubernetes release tag like ${VERSION_MATRIX[DEFAULT_MINOR].kubernetes}.`);
  const minor = `1.${Number(m[1])}`;
  if (!isSupportedMinor(minor)) {
    throw new Error(`Kubernetes ${minor} is not supported; supported minors are ${SUPPORTED_MINORS.join(', ')}.`);
  }
  return { minor, kubernetes: `v1.${Number(m[1])}.${Number(m[2])}`, components: VERSION_MATRIX[minor] };
}

export function isSupportedMinor(minor: string): minor is KubeMinor {
  return (SUPPORTED_MINORS as readonly string[]).includes(minor);
}
