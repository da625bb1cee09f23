// What the cluster's CSI drivers made in the project (Cinder volumes, Manila shares; found by the cluster's
// uuid in their metadata, §4.1) holds user data: the delete keeps it and lists it in the cluster's events
// (and the operator's log, which outlives them), unless the cluster asked for its deletion; then it deletes
// what can be deleted and waits until none is left. Cinder's volumes are here; Manila's shares in manila.ts.
import { settingsOf } from '../../bootstrap/addons/framework.js';
import type { CinderCsiSettings } from './addon.js';
import type { ClusterSpec } from '../../cluster-spec/types.js';
import type { Cloud } from '../../steps/cloud.js';
import { Wait } from '../../steps/errors.js';
import type { Step } from '../../steps/step.js';
import { clusterSpec } from '../../steps/context.js';
import { offered } from '../../steps/services.js';

export interface CsiStorageSpec<C, T extends { id: string; status?: string | null }> {
  /** The step, the event's type and the log's key: 'volumes', 'shares'. */
  name: string;
  /** The event's reason, e.g. 'VolumesKept'. */
  reason: string;
  /** What the event counts, e.g. 'volume(s)'. */
  what: string;
  client(cloud: Cloud): Promise<C>;
  /** Those the cluster's CSI made (by their metadata). */
  list(client: C, uuid: string): Promise<T[]>;
  /** The cluster's label asking for their deletion. */
  deleteAsked(spec: ClusterSpec): boolean;
  /** Whether the service deletes from its status now; the others settle first. */
  deletable(item: T): boolean;
  delete(client: C, id: string): Promise<unknown>;
}

export function purgeCsiStorage<C, T extends { id: string; status?: string | null }>(s: CsiStorageSpec<C, T>): Step {
  return {
    name: s.name,
    async run(ctx) {
      if (!ctx.cluster.app_cred_id) return;
      const cloud = ctx.cloud();
      const client = await offered(() => s.client(cloud));
      if (!client) return;
      const found = await s.list(client, ctx.cluster.uuid);
      if (found.length === 0) return;
      // A spec that no longer parses (a template changed under the cluster) keeps them: they hold user data.
      if (!(await clusterSpec(ctx).then(s.deleteAsked, () => false))) {
        const ids = found.map((x) => x.id);
        ctx.log(`${s.name} kept`, { [s.name]: ids });
        await ctx.event(s.name, s.reason, `Kept ${found.length} ${s.what} made by the cluster's CSI: ${ids.join(', ')}.`, 'warning');
        return;
      }
      for (const x of found) if (s.deletable(x)) await s.delete(client, x.id);
      throw new Wait(ctx.pollMs, `${found.length} ${s.what} being deleted`);
    },
  };
}

/** Cinder's volumes (label cinder_csi_delete_volumes). */
export const purgeVolumes = purgeCsiStorage({
  name: 'volumes', reason: 'VolumesKept', what: 'volume(s)',
  client: (cloud) => cloud.cinder(),
  list: (cinder, uuid) => cinder.listVolumes({ metadata: { 'cinder.csi.openstack.org/cluster': uuid } }),
  deleteAsked: (spec) => settingsOf<CinderCsiSettings>(spec, 'cinderCsi').deleteVolumes,
  // In use or changing: not deletable yet.
  deletable: (v) => !['deleting', 'in-use', 'attaching', 'detaching'].includes(v.status ?? ''),
  delete: (cinder, id) => cinder.deleteVolume(id),
});
