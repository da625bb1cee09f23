// What the cluster's CSI drivers made in the project (Cinder volumes, Manila shares; found by the cluster's
// uuid in their metadata, §4.1) holds user data: the delete keeps it and lists it in the cluster's events
// (and the operator's log, which outlives them), unless the cluster asked for its deletion; then it deletes
// what can be deleted and waits until none is left. The features cinder-csi and manila-csi purge with it.
import type { ClusterSpec } from '../cluster-spec/types.js';
import type { Cloud } from './cloud.js';
import { clusterSpec } from './context.js';
import { Wait } from './errors.js';
import { offered } from './services.js';
import type { Step } from './step.js';

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
