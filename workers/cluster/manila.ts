// Manila CSI (label manila_csi_enabled): the create checks that the cloud offers Manila before the add-ons are
// applied; the delete finds the shares the cluster's CSI made by their metadata (manila.csi.openstack.org/cluster =
// cluster uuid) and, as for Cinder volumes, keeps them and lists them in the cluster's events unless the cluster
// asked for their deletion (label manila_csi_delete_shares). Shares of other clusters are never matched.
import { settingsOf } from '../../src/kube/addons/framework.js';
import { MANILA_CLUSTER_KEY, type ManilaCsiSettings } from '../../src/kube/addons/manila-csi/index.js';
import { Wait } from '../errors.js';
import type { Step } from '../runner.js';
import { clusterSpec } from './context.js';
import { offered, required } from './services.js';

/** Statuses Manila deletes from; the others (creating, extending, ...) settle first. */
const DELETABLE = new Set(['available', 'error', 'inactive']);

export const ensureManilaService: Step = {
  name: 'manila_service',
  condition: 'addons',
  async run(ctx) {
    if (!settingsOf<ManilaCsiSettings>(await clusterSpec(ctx), 'manilaCsi').enabled) return;
    await required(() => ctx.cloud().manila(), { reason: 'ManilaUnavailable', label: 'manila_csi_enabled', service: 'the shared file system service (Manila)', condition: 'addons' });
  },
};

export const deleteShares: Step = {
  name: 'shares',
  async run(ctx) {
    if (!ctx.cluster.app_cred_id) return;
    const manila = await offered(() => ctx.cloud().manila());
    if (!manila) return;
    const found = await manila.listShares({ metadata: { [MANILA_CLUSTER_KEY]: ctx.cluster.uuid } });
    if (found.length === 0) return;
    // A spec that no longer parses keeps them: they hold user data.
    const remove = await clusterSpec(ctx).then((s) => settingsOf<ManilaCsiSettings>(s, 'manilaCsi').deleteShares, () => false);
    if (!remove) {
      ctx.log('shares kept', { shares: found.map((s) => s.id) });
      await ctx.event('shares', 'SharesKept', `Kept ${found.length} Manila share(s) made by the cluster's CSI: ${found.map((s) => s.id).join(', ')}.`, 'warning');
      return;
    }
    for (const s of found) if (DELETABLE.has(s.status)) await manila.deleteShare(s.id);
    throw new Wait(ctx.pollMs, `${found.length} share(s) being deleted`);
  },
};
