// Shell functions a node runs when its image does not carry what the cluster needs (label
// kube_install_at_boot, image without property kube_version): Kubernetes of the cluster's exact
// version and containerd 2.x with runc. Ubuntu takes kubeadm, kubelet, kubectl, cri-tools and the
// CNI plugins from the Kubernetes package repository (pkgs.k8s.io); Fedora CoreOS, which has no
// package manager to speak of, the release binaries (dl.k8s.io, cri-tools and CNI plugin releases).
// containerd and runc come from their GitHub releases on both. Every download is checked against
// the sha256 its publisher puts beside it, and goes through the template's proxy.

import type { NodeDistro } from '../../cluster-spec/image.js';
import type { ClusterSpec } from '../../cluster-spec/types.js';
import { UNIT_FILES } from './units.js';

/** A value as one single-quoted shell word. */
export const shq = (v: string): string => `'${v.replace(/'/g, `'\\''`)}'`;

const GITHUB = 'https://github.com';
const K8S_PKGS = 'https://pkgs.k8s.io/core:/stable';
const K8S_RELEASES = 'https://dl.k8s.io/release';

/** `fetch URL FILE SUMS`: downloads with retries and checks FILE against the sums file (a bare sum, or `sum  name` lines). */
const FETCH = [
  'fetch() {',
  '  local url="$1" file="$2" sums="$3" want',
  '  curl -fsSL --retry 5 --retry-delay 3 --retry-connrefused -o "$file" "$url"',
  `  want="$(curl -fsSL --retry 5 --retry-delay 3 --retry-connrefused "$sums" | awk -v n="\${url##*/}" 'NF == 1 || $2 == n || $2 == "*" n { print $1; exit }')"`,
  '  [ -n "$want" ] || fail "no sha256 for ${url##*/} in $sums"',
  '  echo "$want  $file" | sha256sum --check --quiet - || fail "sha256 of $url does not match $sums"',
  '}',
];

/** `use_proxy`: exports the template's proxy (the install functions run in subshells: the rest of the script keeps none). */
function useProxy(proxy: { http: string; https: string; noProxy: string } | null): string[] {
  const vars: string[] = [];
  for (const [name, value] of [['http_proxy', proxy?.http], ['https_proxy', proxy?.https], ['no_proxy', proxy?.noProxy]] as const) {
    if (value) vars.push(`${name}=${shq(value)} ${name.toUpperCase()}=${shq(value)}`);
  }
  return vars.length === 0 ? ['use_proxy() { :; }'] : ['use_proxy() {', `  export ${vars.join(' ')}`, '}'];
}

function containerd(spec: ClusterSpec): string[] {
  const c = spec.kubernetes.components;
  const v = c.containerd.replace(/^v/, '');
  const tarball = `${GITHUB}/containerd/containerd/releases/download/${c.containerd}/containerd-${v}-linux-\${arch}.tar.gz`;
  const runc = `${GITHUB}/opencontainers/runc/releases/download/${c.runc}`;
  return [
    'install_containerd() (',
    '  use_proxy',
    `  log "installing containerd ${c.containerd} and runc ${c.runc}"`,
    `  fetch "${tarball}" /tmp/containerd.tar.gz "${tarball}.sha256sum"`,
    '  tar -C /usr/local -xzf /tmp/containerd.tar.gz',
    `  fetch "${runc}/runc.\${arch}" /tmp/runc "${runc}/runc.sha256sum"`,
    '  install -m 0755 /tmp/runc /usr/local/sbin/runc',
    `  install -m 0644 ${UNIT_FILES.containerd} /etc/systemd/system/containerd.service`,
    '  rm -f /tmp/containerd.tar.gz /tmp/runc',
    ')',
  ];
}

/** Ubuntu: the exact version from pkgs.k8s.io (its packages carry the kubelet unit and kubeadm's drop-in). */
function kubernetesFromPackages(spec: ClusterSpec): string[] {
  const { minor, version } = spec.kubernetes;
  const pkg = `${version.replace(/^v/, '')}-1.1`;
  const repo = `${K8S_PKGS}:/v${minor}/deb/`;
  const keyring = '/etc/apt/keyrings/kubernetes-apt-keyring.gpg';
  return [
    'install_kubernetes() (',
    '  use_proxy',
    `  log "installing Kubernetes ${version} from ${repo}"`,
    '  export DEBIAN_FRONTEND=noninteractive',
    '  apt-get update -q',
    '  apt-get install -y -q ca-certificates curl gpg',
    '  install -d -m 0755 /etc/apt/keyrings',
    `  curl -fsSL --retry 5 --retry-delay 3 ${repo}Release.key | gpg --dearmor --yes -o ${keyring}`,
    `  echo "deb [signed-by=${keyring}] ${repo} /" > /etc/apt/sources.list.d/kubernetes.list`,
    '  apt-get update -q',
    `  apt-get install -y -q --allow-change-held-packages --allow-downgrades kubelet=${pkg} kubeadm=${pkg} kubectl=${pkg} cri-tools kubernetes-cni`,
    '  apt-mark hold kubelet kubeadm kubectl',
    ')',
  ];
}

/** Fedora CoreOS: the release binaries, crictl, the CNI plugins and the kubelet unit with kubeadm's drop-in. */
function kubernetesFromReleases(spec: ClusterSpec): string[] {
  const { version, components: c } = spec.kubernetes;
  const bin = `${K8S_RELEASES}/${version}/bin/linux/\${arch}`;
  const crictl = `${GITHUB}/kubernetes-sigs/cri-tools/releases/download/${c.crictl}/crictl-${c.crictl}-linux-\${arch}.tar.gz`;
  const cni = `${GITHUB}/containernetworking/plugins/releases/download/${c.cniPlugins}/cni-plugins-linux-\${arch}-${c.cniPlugins}.tgz`;
  return [
    'install_kubernetes() (',
    '  use_proxy',
    `  log "installing Kubernetes ${version} from ${K8S_RELEASES}"`,
    '  for b in kubeadm kubelet kubectl; do',
    `    fetch "${bin}/$b" "/usr/local/bin/$b" "${bin}/$b.sha256"`,
    '    chmod 0755 "/usr/local/bin/$b"',
    '  done',
    `  fetch "${crictl}" /tmp/crictl.tar.gz "${crictl}.sha256"`,
    '  tar -C /usr/local/bin -xzf /tmp/crictl.tar.gz',
    `  fetch "${cni}" /tmp/cni-plugins.tgz "${cni}.sha256"`,
    '  install -d -m 0755 /opt/cni/bin',
    '  tar -C /opt/cni/bin -xzf /tmp/cni-plugins.tgz',
    `  install -m 0644 ${UNIT_FILES.kubelet} /etc/systemd/system/kubelet.service`,
    '  install -d -m 0755 /etc/systemd/system/kubelet.service.d',
    `  install -m 0644 ${UNIT_FILES.kubeletKubeadm} /etc/systemd/system/kubelet.service.d/10-kubeadm.conf`,
    '  rm -f /tmp/crictl.tar.gz /tmp/cni-plugins.tgz',
    ')',
  ];
}

/** The shell functions use_proxy, fetch, install_containerd and install_kubernetes (subshells, with the proxy) for the distro. */
export function installFunctions(spec: ClusterSpec, distro: NodeDistro, proxy: { http: string; https: string; noProxy: string } | null): string[] {
  return [
    ...useProxy(proxy),
    ...FETCH,
    ...containerd(spec),
    ...(distro === 'ubuntu' ? kubernetesFromPackages(spec) : kubernetesFromReleases(spec)),
  ];
}
