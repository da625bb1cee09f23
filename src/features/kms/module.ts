// Core module: encryption of Secrets at rest with a per-cluster key in Barbican (label barbican_kms_enabled, not
// Magnum's: neither Magnum driver had one). kube-apiserver encrypts every Secret with a data key it wraps through
// the KMS v2 plugin of cloud-provider-openstack (barbican-kms-plugin), which runs as a static pod on each control
// plane (a DaemonSet could not start before the apiserver it serves). Fixed at create: the key is made before the
// first control plane boots, and deleted with the cluster.

import { bool, label } from '../../cluster-spec/labels/types.js';
import { defineModule } from '../../cluster-spec/module.js';
import type { KmsSpec } from '../../cluster-spec/types.js';

export const kmsModule = defineModule({
  key: 'kms',
  kind: 'core',
  labels: {
    barbican_kms_enabled: label(
      bool,
      "Not a Magnum label. Encrypt Secrets at rest in etcd (KMS v2) with an AES-256 key the service keeps in Barbican for the cluster, through barbican-kms-plugin as a static pod on every control plane; the key is deleted with the cluster. Default false.",
    ),
  },
  resolve(l, ctx): KmsSpec {
    const k = ctx.spec.kubernetes!;
    const enabled = l.barbican_kms_enabled ?? false;
    return {
      enabled,
      image: `${k.imageRepository || 'registry.k8s.io/provider-os'}/barbican-kms-plugin:${k.components.cloudProvider}`,
      agentImage: `${k.imageRepository || 'docker.io/library'}/busybox:${k.components.busybox}`,
    };
  },
});
