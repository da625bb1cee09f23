// Cinder CSI's volumes at the cluster's delete (found by the cluster's uuid in their metadata, §4.1): kept and
// listed in the cluster's events unless the label cinder_csi_delete_volumes asks for their deletion
// (src/steps/csi-storage.ts says how).
import { settingsOf } from '../../bootstrap/addons/framework.js';
import { purgeCsiStorage } from '../../steps/csi-storage.js';
import type { Step } from '../../steps/step.js';
import type { CinderCsiSettings } from './addon.js';

/** Cinder's volumes (label cinder_csi_delete_volumes). */
export const purgeVolumes: Step = {
  // After the servers and what they used; before the credential, which the listing needs.
  after: ['server_groups'],
  before: ['credential'],
  ...purgeCsiStorage({
    name: 'volumes', reason: 'VolumesKept', what: 'volume(s)',
    client: (cloud) => cloud.cinder(),
    list: (cinder, uuid) => cinder.listVolumes({ metadata: { 'cinder.csi.openstack.org/cluster': uuid } }),
    deleteAsked: (spec) => settingsOf<CinderCsiSettings>(spec, 'cinderCsi').deleteVolumes,
    // In use or changing: not deletable yet.
    deletable: (v) => !['deleting', 'in-use', 'attaching', 'detaching'].includes(v.status ?? ''),
    delete: (cinder, id) => cinder.deleteVolume(id),
  }),
};
