// Manila CSI (label manila_csi_enabled): the create checks that the cloud offers Manila before the add-ons are
// applied; the delete finds the shares the cluster's CSI made by their metadata (manila.csi.openstack.org/cluster =
// cluster uuid) and, as for Cinder volumes, keeps them and lists them in the cluster's events unless the cluster
// asked for their deletion (label manila_csi_delete_shares). Shares of other clusters are never matched.
import { settingsOf } from '../../bootstrap/addons/framework.js';
import { MANILA_CLUSTER_KEY, type ManilaCsiSettings } from './addon.js';
import type { Step } from '../../steps/step.js';
import { clusterSpec } from '../../steps/context.js';
import { purgeCsiStorage } from '../../steps/csi-storage.js';
import { required } from '../../steps/services.js';

/** Statuses Manila deletes from; the others (creating, extending, ...) settle first. */
const DELETABLE = new Set(['available', 'error', 'inactive']);

export const ensureManilaService: Step = {
  name: 'manila_service',
  before: ['addons'],
  condition: 'addons',
  async run(ctx) {
    if (!settingsOf<ManilaCsiSettings>(await clusterSpec(ctx), 'manilaCsi').enabled) return;
    await required(() => ctx.cloud().manila(), { reason: 'ManilaUnavailable', label: 'manila_csi_enabled', service: 'the shared file system service (Manila)', condition: 'addons' });
  },
};

/** Manila's shares (label manila_csi_delete_shares). */
export const purgeShares: Step = {
  // After the servers and what they used; before the credential, which the listing needs.
  after: ['server_groups'],
  before: ['credential'],
  ...purgeCsiStorage({
    name: 'shares', reason: 'SharesKept', what: 'Manila share(s)',
    client: (cloud) => cloud.manila(),
    list: (manila, uuid) => manila.listShares({ metadata: { [MANILA_CLUSTER_KEY]: uuid } }),
    deleteAsked: (spec) => settingsOf<ManilaCsiSettings>(spec, 'manilaCsi').deleteShares,
    deletable: (share) => DELETABLE.has(share.status),
    delete: (manila, id) => manila.deleteShare(id),
  }),
};
