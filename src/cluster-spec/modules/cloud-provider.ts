// Core modules: the external OpenStack cloud provider (OCCM + Cinder CSI image tags) and node placement.

import { bool, imageTag, int, label, text } from '../labels/types.js';
import { defineModule, type ModuleContext } from '../module.js';
import type { CloudProviderSpec, NodesSpec, NodeVolume } from '../types.js';
import { zoneList, zoneName } from '../zones.js';

function sameMinor(name: string, tag: string | undefined, fallback: string, ctx: ModuleContext): string {
  if (tag === undefined) return fallback;
  const minor = ctx.spec.kubernetes!.minor;
  if (!tag.startsWith(`v${minor}.`)) {
    ctx.reject(name, `Must belong to the Kubernetes ${minor} release train (v${minor}.x), like ${fallback}.`);
  }
  return tag;
}

export const cloudProviderModule = defineModule({
  key: 'cloudProvider',
  kind: 'core',
  labels: {
    cloud_provider_enabled: label(bool, 'Must be true (or absent): nodes are registered by the external OpenStack cloud provider.'),
    cloud_provider_tag: label(imageTag, 'OCCM image tag override; must match the Kubernetes minor.'),
    cinder_csi_plugin_tag: label(imageTag, 'Cinder CSI plugin image tag override; must match the Kubernetes minor.'),
  },
  resolve(l, ctx): CloudProviderSpec {
    if (l.cloud_provider_enabled === false) {
      ctx.reject('cloud_provider_enabled', 'Clusters always run the external OpenStack cloud provider (kubelets use cloud-provider=external).');
    }
    const row = ctx.spec.kubernetes!.components;
    return {
      occmTag: sameMinor('cloud_provider_tag', l.cloud_provider_tag, row.cloudProvider, ctx),
      cinderCsiTag: sameMinor('cinder_csi_plugin_tag', l.cinder_csi_plugin_tag, row.cinderCsi, ctx),
      clusterName: ctx.cluster.uuid,
    };
  },
});

export const nodesModule = defineModule({
  key: 'nodes',
  kind: 'core',
  labels: {
    availability_zone: label(zoneName, 'Nova availability zone of every node and its volumes, unless control_plane_availability_zones or worker_availability_zones spread them; on a node group given one of its own: the zone of its nodes. OCCM copies it into the Nodes\' topology.kubernetes.io/zone label.'),
    control_plane_availability_zones: label(zoneList, 'Not a Magnum label. magnum-cluster-api\'s: the zones the control planes are spread over, one after the other by node index; a warning event when losing one zone would lose etcd\'s quorum.'),
    worker_availability_zones: label(zoneList, 'Not a Magnum label. The zones the nodes of every worker group without a zone of its own are spread over, one after the other by node index.'),
    boot_volume_size: label(int(0, 16_384), 'GB: every node boots from a Cinder volume of this size made from the image (deleted with the server); 0 or absent: the flavor\'s disk.'),
    boot_volume_type: label(text, 'Cinder volume type of the boot volumes (default: the cloud\'s default type).', { ignored: 'without boot_volume_size' }),
    etcd_volume_size: label(int(0, 16_384), 'GB: each control plane gets a volume of this size, formatted and mounted at /var/lib/etcd at first boot (deleted with the server); 0 or absent: etcd on the root disk.'),
    etcd_volume_type: label(text, 'Cinder volume type of the etcd volumes (default: the cloud\'s default type).', { ignored: 'without etcd_volume_size' }),
    docker_volume_type: label(text, 'Cinder volume type of the container runtime volumes (docker_volume_size: every node gets one, mounted at /var/lib/containerd, deleted with the server; default: the cloud\'s default type).'),
  },
  resolve(l, ctx): NodesSpec {
    const az = l.availability_zone ?? '';
    const masterCount = ctx.cluster.master_count ?? 1;
    const nodeCount = ctx.cluster.node_count ?? 1;
    const volume = (size: number | undefined, type: string | undefined, name: string): NodeVolume | null => {
      if (type !== undefined && !/^[\w .:-]{1,255}$/.test(type)) ctx.reject(`${name}_type`, 'Expected a Cinder volume type name.');
      if (!size) {
        // Node groups may have their own docker_volume_size: the type applies to theirs.
        if (type && name !== 'docker_volume') ctx.ignore(`${name}_type`);
        return null;
      }
      return { sizeGb: size, type: type ?? '' };
    };
    return {
      masterCount,
      nodeCount,
      availabilityZone: az,
      controlPlaneZones: l.control_plane_availability_zones ?? [],
      workerZones: l.worker_availability_zones ?? [],
      bootVolume: volume(l.boot_volume_size, l.boot_volume_type, 'boot_volume'),
      etcdVolume: volume(l.etcd_volume_size, l.etcd_volume_type, 'etcd_volume'),
      runtimeVolume: volume(ctx.cluster.docker_volume_size ?? undefined, l.docker_volume_type, 'docker_volume'),
      runtimeVolumeType: l.docker_volume_type ?? '',
    };
  },
});
