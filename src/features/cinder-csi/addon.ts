// Add-on `cinder-csi`: Cinder CSI controller Deployment + node DaemonSet + CSIDriver + RBAC + the default
// StorageClass (spec k8s-bootstrap §3). --cluster=<cluster uuid> tags volumes with their cluster.

import { bool, imageTag, label } from '../../cluster-spec/labels/types.js';
import { defineAddon, ORDER, settingsOf, type K8sObject } from '../../bootstrap/addons/framework.js';
import { meta } from '../../bootstrap/addons/k8s.js';
import { controllerDeployment, nodeDaemonSet } from './workloads.js';
import { cinderRbac } from './rbac.js';

export const DRIVER = 'cinder.csi.openstack.org';
const SIG_STORAGE = 'registry.k8s.io/sig-storage';

export interface CinderCsiSettings {
  enabled: boolean;
  /** The cluster's delete also deletes the volumes its CSI made (default: kept, listed in the events). */
  deleteVolumes: boolean;
  images: { plugin: string; attacher: string; provisioner: string; snapshotter: string; resizer: string; livenessProbe: string; nodeDriverRegistrar: string };
}

export const cinderCsiAddon = defineAddon({
  key: 'cinderCsi',
  kind: 'addon',
  name: 'cinder-csi',
  order: ORDER.cinderCsi,
  labels: {
    cinder_csi_enabled: label(bool, 'Install Cinder CSI and the default StorageClass csi-cinder-sc-delete (default true).'),
    csi_attacher_tag: label(imageTag, 'csi-attacher sidecar tag; default from the CPO release of the Kubernetes minor.'),
    csi_provisioner_tag: label(imageTag, 'csi-provisioner sidecar tag; default from the CPO release of the Kubernetes minor.'),
    csi_snapshotter_tag: label(imageTag, 'csi-snapshotter sidecar tag; default from the CPO release of the Kubernetes minor.'),
    csi_resizer_tag: label(imageTag, 'csi-resizer sidecar tag; default from the CPO release of the Kubernetes minor.'),
    csi_node_driver_registrar_tag: label(imageTag, 'csi-node-driver-registrar sidecar tag; default from the CPO release of the Kubernetes minor.'),
    cinder_csi_delete_volumes: label(
      bool,
      "Not a Magnum label. Deleting the cluster also deletes the Cinder volumes its CSI made (found by the cluster's uuid in their metadata). Default false: they are kept and listed in the cluster's events.",
    ),
  },
  resolve(l, ctx): CinderCsiSettings {
    const k = ctx.spec.kubernetes!;
    const row = k.components;
    const side = (name: string, tag: string) => `${k.imageRepository || SIG_STORAGE}/${name}:${tag}`;
    return {
      enabled: l.cinder_csi_enabled ?? true,
      deleteVolumes: l.cinder_csi_delete_volumes ?? false,
      images: {
        // same tag and mirror rule as cloudconf.ts (cinder_csi_plugin_tag is a core cloudProvider label)
        plugin: `${k.imageRepository || 'registry.k8s.io/provider-os'}/cinder-csi-plugin:${ctx.spec.cloudProvider!.cinderCsiTag}`,
        attacher: side('csi-attacher', l.csi_attacher_tag ?? row.csiAttacher),
        provisioner: side('csi-provisioner', l.csi_provisioner_tag ?? row.csiProvisioner),
        snapshotter: side('csi-snapshotter', l.csi_snapshotter_tag ?? row.csiSnapshotter),
        resizer: side('csi-resizer', l.csi_resizer_tag ?? row.csiResizer),
        livenessProbe: side('livenessprobe', row.csiLivenessProbe),
        nodeDriverRegistrar: side('csi-node-driver-registrar', l.csi_node_driver_registrar_tag ?? row.csiNodeDriverRegistrar),
      },
    };
  },
  enabled: (spec) => settingsOf<CinderCsiSettings>(spec, 'cinderCsi').enabled,
  render(spec, ctx): K8sObject[] {
    const s = settingsOf<CinderCsiSettings>(spec, 'cinderCsi');
    return [
      ...cinderRbac(),
      {
        apiVersion: 'storage.k8s.io/v1',
        kind: 'CSIDriver',
        metadata: meta(DRIVER),
        spec: { attachRequired: true, podInfoOnMount: true, volumeLifecycleModes: ['Persistent', 'Ephemeral'] },
      },
      controllerDeployment(s.images, ctx.cloud.cinderCsi.cluster),
      nodeDaemonSet(s.images),
      {
        apiVersion: 'storage.k8s.io/v1',
        kind: 'StorageClass',
        metadata: { ...meta('csi-cinder-sc-delete'), annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
        provisioner: DRIVER,
        reclaimPolicy: 'Delete',
        allowVolumeExpansion: true,
        volumeBindingMode: 'WaitForFirstConsumer',
      },
    ];
  },
});
