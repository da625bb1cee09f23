// Core module: Kubernetes version, image registry, container runtime.

import { bool, label, oneOf, registryPrefix, type LabelType } from '../labels/types.js';
import { defineModule } from '../module.js';
import type { KubernetesSpec } from '../types.js';
import { resolveKubeTag, type ResolvedVersion } from '../versions.js';

const kubeTag: LabelType<ResolvedVersion> = {
  accepts: 'v1.34.x | v1.35.x | v1.36.x',
  parse: (raw) => resolveKubeTag(raw.trim()),
};

export const kubernetesModule = defineModule({
  key: 'kubernetes',
  kind: 'core',
  labels: {
    kube_tag: label(kubeTag, 'Kubernetes version; the minor selects the pinned component row (default v1.35).'),
    container_infra_prefix: label(registryPrefix, 'kubeadm imageRepository and pause image registry (mirror of registry.k8s.io).'),
    container_runtime: label(
      oneOf(['', 'containerd', 'host-docker']),
      "Only containerd 2.x (the node image's, else installed at boot at the version pinned per Kubernetes minor); '' means containerd.",
    ),
    cgroup_driver: label(oneOf(['systemd']), "systemd, the only driver: kubelet and containerd both use it on cgroup v2, mandatory from 1.35 (Magnum's cgroupfs is refused)."),
    kube_install_at_boot: label(
      bool,
      "Not a Magnum label. Default true: a node whose image does not carry kubeadm, kubelet and containerd 2.x of the cluster's version (image property kube_version) installs them at boot (pkgs.k8s.io on Ubuntu, release downloads on Fedora CoreOS, through the template's proxy). false: nodes never download software (air-gapped clouds); such a node fails its bootstrap, and the create fails at its deadline naming the cause.",
    ),
  },
  resolve(l, ctx): KubernetesSpec {
    if (l.container_runtime === 'host-docker') {
      ctx.reject('container_runtime', 'Docker is no longer a Kubernetes runtime (dockershim was removed in 1.24); use containerd.');
    }
    const v = l.kube_tag ?? resolveKubeTag(undefined);
    return {
      minor: v.minor,
      version: v.kubernetes,
      components: { ...v.components },
      imageRepository: l.container_infra_prefix ?? '',
      cgroupDriver: 'systemd',
      installAtBoot: l.kube_install_at_boot ?? true,
    };
  },
});
