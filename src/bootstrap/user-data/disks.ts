// The Cinder volumes a node gets beside its root disk, in the order of the server's block device
// mapping (workers/cluster/servers.ts asks the same function), which is the order the guest sees
// them: /dev/vdb, /dev/vdc behind the root disk (the image's or a boot volume). Each is formatted
// ext4 once, labelled, and mounted before the component that keeps its data there starts.

import type { NodeVolume } from '../../cluster-spec/types.js';
import type { NodeRole } from './inputs.js';

export interface NodeDisk {
  /** Filesystem label and mount unit name part. */
  label: 'etcd' | 'containerd';
  device: string;
  mountPoint: string;
  volume: NodeVolume;
}

const MOUNTS = { etcd: '/var/lib/etcd', containerd: '/var/lib/containerd' } as const;

/**
 * A control plane's etcd volume (labels etcd_volume_*), then the container runtime volume of a node whose
 * group has a docker_volume_size (`runtime`: its size and the label docker_volume_type).
 */
export function nodeDisks(role: NodeRole, etcd: NodeVolume | null, runtime: NodeVolume | null): NodeDisk[] {
  const wanted: [NodeDisk['label'], NodeVolume | null][] = [['etcd', role === 'worker' ? null : etcd], ['containerd', runtime]];
  const out: NodeDisk[] = [];
  for (const [label, volume] of wanted) {
    if (!volume) continue;
    out.push({ label, device: `/dev/vd${String.fromCharCode('b'.charCodeAt(0) + out.length)}`, mountPoint: MOUNTS[label], volume });
  }
  return out;
}

/** The systemd unit name of a mount point (systemd-escape --path). */
export function mountUnitName(mountPoint: string): string {
  return `${mountPoint.replace(/^\//, '').replace(/\//g, '-')}.mount`;
}
