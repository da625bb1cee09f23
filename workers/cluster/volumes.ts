// A node's Cinder volumes (its boot volume, labels boot_volume_*; a control plane's etcd volume, labels
// etcd_volume_*; its container runtime volume, docker_volume_size), made by the service in the node's zone
// before its server: Nova would make them in Cinder's default zone unless the cloud sets cross_az_attach
// false, so a zone's loss would take other zones' disks with it. Named <node>-<disk>, recorded at once,
// found again by name; the server takes them with delete_on_termination, so they go with it. Deleted after
// the servers at a cluster's delete (those a server never took), and dropped from the ledger once gone.
import { nodeDisks } from '../../src/bootstrap/user-data/disks.js';
import type { NodeRole } from '../../src/bootstrap/user-data/inputs.js';
import type { NodesSpec, NodeVolume } from '../../src/cluster-spec/types.js';
import type { CinderClient, Volume } from '../../src/openstack/cinder.js';
import { isNotFound } from '../../src/openstack/errors.js';
import { StepFailure } from '../../src/steps/errors.js';
import { clusterDescription } from '../../src/steps/naming.js';
import type { RunContext, Step } from '../../src/steps/step.js';
import { ensure, purge } from '../../src/steps/ensure.js';
import { isControlPlane } from './ports.js';
import type { BlockDeviceMapping } from '../../src/openstack/nova-servers.js';

/** Metadata marking a node volume as the cluster's (the CSI driver's carry cinder.csi.openstack.org/cluster instead). */
const CLUSTER_KEY = 'magnum_cluster';
const NODE_KEY = 'magnum_node';
const DISKS = ['root', 'etcd', 'containerd'] as const;
/** Cinder deletes a volume in these states; the others settle first (attached, changing, deleting). */
const DELETABLE = new Set(['available', 'error', 'error_restoring', 'error_extending', 'error_managing']);

interface WantedVolume {
  disk: (typeof DISKS)[number];
  volume: NodeVolume;
}

/** The node's volumes in the guest's device order: the boot volume, then nodeDisks' (etcd, containerd). */
function wanted(nodes: NodesSpec, role: NodeRole, runtime: NodeVolume | null): WantedVolume[] {
  return [
    ...(nodes.bootVolume ? [{ disk: 'root' as const, volume: nodes.bootVolume }] : []),
    ...nodeDisks(role, nodes.etcdVolume, runtime).map((d) => ({ disk: d.label, volume: d.volume })),
  ];
}

/** The node a volume named <node>-<disk> belongs to. */
const nodeOf = (volumeName: string): string => volumeName.replace(new RegExp(`-(${DISKS.join('|')})$`), '');

/** The zone a node's volumes are made in: its own when Cinder offers it, else Cinder's default (said once per operation). */
async function volumeZone(ctx: RunContext, cinder: CinderClient, zone: string | undefined): Promise<string | undefined> {
  if (zone === undefined) return undefined;
  const offered = await ctx.memoRuns('cinder-zones', async () => (await cinder.listAvailabilityZones()).filter((z) => z.zoneState.available).map((z) => z.zoneName));
  if (offered.includes(zone)) return zone;
  await ctx.memoRuns(`cinder-zone-missing:${zone}`, () =>
    ctx.event('workers', 'VolumeZoneUnavailable', `Cinder offers no zone ${zone} (its zones: ${offered.join(', ') || 'none'}): the volumes of the nodes in ${zone} are made in Cinder's default zone.`, 'warning'),
  );
  return undefined;
}

export interface NodeVolumes {
  /** Every volume available: the server may be made. */
  ready: boolean;
  /** The block device mapping of the server (boot disk first, then the volumes in device order). */
  mapping: BlockDeviceMapping[];
}

/**
 * The volumes of node `name` (made if absent, in `zone`), and the server's block device mapping of them.
 * A volume Cinder failed to make ends the operation naming it.
 */
export async function nodeVolumes(
  ctx: RunContext,
  node: { name: string; role: NodeRole },
  nodes: NodesSpec,
  runtime: NodeVolume | null,
  image: string,
  zone: string | undefined,
): Promise<NodeVolumes> {
  const want = wanted(nodes, node.role, runtime);
  if (want.length === 0) return { ready: true, mapping: [] };
  const cinder = await ctx.cloud().cinder();
  const az = await volumeZone(ctx, cinder, zone);
  const made: { disk: WantedVolume['disk']; v: Volume }[] = [];
  for (const w of want) {
    const name = `${node.name}-${w.disk}`;
    const v = await ensure(ctx, {
      step: 'volumes', service: 'block-storage', type: 'volume', name,
      get: (id) => cinder.getVolume(id),
      findByName: () => cinder.listVolumes({ name, metadata: { [CLUSTER_KEY]: ctx.cluster.uuid } }),
      create: () =>
        cinder.createVolume({
          name,
          description: clusterDescription(ctx.cluster.uuid),
          size: w.volume.sizeGb,
          ...(w.volume.type ? { volume_type: w.volume.type } : {}),
          ...(az ? { availability_zone: az } : {}),
          ...(w.disk === 'root' ? { imageRef: image } : {}),
          metadata: { [CLUSTER_KEY]: ctx.cluster.uuid, [NODE_KEY]: node.name },
        }),
    });
    if (v.status === 'error') {
      throw new StepFailure('VolumeError', `Volume ${name} (${v.id}) of node ${node.name} went to error in Cinder.`, isControlPlane(node.role) ? 'control_plane' : 'workers');
    }
    made.push({ disk: w.disk, v });
  }
  const boot = made.find((m) => m.disk === 'root');
  const mapping: BlockDeviceMapping[] = [
    // The boot disk: the node's boot volume, or the image's root disk named in the mapping beside the volumes.
    boot
      ? { boot_index: 0, source_type: 'volume', destination_type: 'volume', uuid: boot.v.id, delete_on_termination: true }
      : { boot_index: 0, source_type: 'image', uuid: image, destination_type: 'local', delete_on_termination: true },
    ...made.filter((m) => m.disk !== 'root').map((m): BlockDeviceMapping => ({ boot_index: -1, source_type: 'volume', destination_type: 'volume', uuid: m.v.id, delete_on_termination: true, tag: m.disk })),
  ];
  return { ready: made.every((m) => m.v.status === 'available'), mapping };
}

/**
 * The ledger's volumes whose node is neither live nor planned: gone with their server (delete_on_termination),
 * or never taken by one (a failed or replaced plan), then deleted here. Marked deleted once Cinder says 404.
 */
export async function dropOrphanVolumes(ctx: RunContext, keep: Set<string>): Promise<void> {
  const rows = (await ctx.ledger.live('volume')).filter((r) => r.name && !keep.has(nodeOf(r.name)));
  if (rows.length === 0) return;
  const cinder = await ctx.cloud().cinder();
  for (const row of rows) {
    try {
      const v = await cinder.getVolume(row.cloud_id);
      if (DELETABLE.has(v.status ?? '')) await cinder.deleteVolume(row.cloud_id);
    } catch (e) {
      if (!isNotFound(e)) throw e;
      await ctx.ledger.markDeleted('block-storage', 'volume', row.cloud_id);
    }
  }
}

/** Delete, after the servers (whose volumes go with them): the rest of the recorded and marked node volumes, waited for. */
export const purgeNodeVolumes: Step = {
  name: 'node_volumes',
  run: (ctx) =>
    purge(ctx, {
      service: 'block-storage', type: 'volume', noun: 'node volume',
      client: (cloud) => cloud.cinder(),
      find: (cinder) => cinder.listVolumes({ metadata: { [CLUSTER_KEY]: ctx.cluster.uuid } }),
      async delete(cinder, id) {
        try {
          const v = await cinder.getVolume(id);
          if (DELETABLE.has(v.status ?? '')) await cinder.deleteVolume(id);
        } catch (e) {
          if (isNotFound(e)) return false;
          throw e;
        }
        return 'going';
      },
    }),
};
