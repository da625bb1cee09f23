// Add-on `manila-csi`: ReadWriteMany volumes on Manila NFS shares. The Manila CSI plugin (driver
// nfs.manila.csi.openstack.org) creates and deletes shares with the cluster's application credential and hands
// node operations to the NFS CSI node plugin running beside it. `--cluster-id` puts the cluster uuid in every
// share's metadata (manila.csi.openstack.org/cluster), which is how the delete finds them. Access to a share is
// granted to the cluster subnet only (Manila's default would be 0.0.0.0/0).

import { bool, cidr, imageTag, label, text } from '../../cluster-spec/labels/types.js';
import { defineAddon, ORDER, settingsOf, type K8sObject } from '../../bootstrap/addons/framework.js';
import { KUBE_SYSTEM, meta, secret } from '../../bootstrap/addons/k8s.js';
import { manilaRbac } from './rbac.js';
import { CA_PATH, controllerStatefulSet, nodeDaemonSet } from './workloads.js';

export const MANILA_DRIVER = 'nfs.manila.csi.openstack.org';
export const MANILA_SECRET = 'csi-manila-secrets';
export const MANILA_STORAGE_CLASS = 'csi-manila-nfs';
/** The share metadata key `--cluster-id` sets. */
export const MANILA_CLUSTER_KEY = 'manila.csi.openstack.org/cluster';
const SIG_STORAGE = 'registry.k8s.io/sig-storage';

export interface ManilaCsiSettings {
  enabled: boolean;
  deleteShares: boolean;
  shareType: string;
  shareNetworkId: string | null;
  /** nfs-shareClient: who may mount the shares. */
  shareClient: string;
  clusterId: string;
  images: { plugin: string; nfs: string; provisioner: string; resizer: string; nodeDriverRegistrar: string };
}

const uuidText = { accepts: 'UUID', parse: (raw: string) => {
  const v = raw.trim().toLowerCase();
  if (!/^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/.test(v)) throw new Error('Expected a UUID.');
  return v;
} };

const TUNING = ['manila_csi_share_network_id', 'manila_csi_share_type', 'manila_csi_share_client', 'manila_csi_delete_shares', 'manila_csi_plugin_tag'] as const;

export const manilaCsiAddon = defineAddon({
  key: 'manilaCsi',
  kind: 'addon',
  name: 'manila-csi',
  order: ORDER.manilaCsi,
  labels: {
    manila_csi_enabled: label(
      bool,
      "Not a Magnum label. (magnum-cluster-api has it.) Install the Manila CSI plugin with the NFS node plugin and StorageClass csi-manila-nfs (ReadWriteMany shares); the cloud must offer Manila (sharev2), else the create fails on the add-ons. Default false.",
    ),
    manila_csi_share_network_id: label(uuidText, 'Not a Magnum label. (magnum-cluster-api has it.) Manila share network of the shares (StorageClass shareNetworkID); default: none (share types without share servers).', { ignored: 'without manila_csi_enabled=true' }),
    manila_csi_share_type: label(text, "Not a Magnum label. Manila share type of the StorageClass (default 'default').", { ignored: 'without manila_csi_enabled=true' }),
    manila_csi_share_client: label(cidr, 'Not a Magnum label. Who may mount the shares (nfs-shareClient); default: the cluster subnet (Manila\'s own default would be 0.0.0.0/0).', { ignored: 'without manila_csi_enabled=true' }),
    manila_csi_delete_shares: label(
      bool,
      "Not a Magnum label. Deleting the cluster also deletes the Manila shares its CSI made (found by the cluster's uuid in their metadata). Default false: they are kept and listed in the cluster's events.", { ignored: 'without manila_csi_enabled=true' }
    ),
    manila_csi_plugin_tag: label(imageTag, 'Not a Magnum label. Manila CSI plugin image tag override; must match the Kubernetes minor.', { ignored: 'without manila_csi_enabled=true' }),
  },
  resolve(l, ctx): ManilaCsiSettings {
    const k = ctx.spec.kubernetes!;
    const row = k.components;
    const enabled = l.manila_csi_enabled ?? false;
    if (!enabled) for (const name of TUNING) if (l[name] !== undefined) ctx.ignore(name);
    const tag = l.manila_csi_plugin_tag ?? row.cinderCsi;
    if (!tag.startsWith(`v${k.minor}.`)) ctx.reject('manila_csi_plugin_tag', `Must belong to the Kubernetes ${k.minor} release train (v${k.minor}.x), like ${row.cinderCsi}.`);
    const shareType = l.manila_csi_share_type || 'default';
    if (!/^[\w .:-]{1,255}$/.test(shareType)) ctx.reject('manila_csi_share_type', 'Expected a Manila share type name.');
    const side = (name: string, t: string) => `${k.imageRepository || SIG_STORAGE}/${name}:${t}`;
    return {
      enabled,
      deleteShares: l.manila_csi_delete_shares ?? false,
      shareType,
      shareNetworkId: l.manila_csi_share_network_id ?? null,
      shareClient: l.manila_csi_share_client?.text ?? ctx.spec.network!.subnetCidr,
      clusterId: ctx.cluster.uuid,
      images: {
        plugin: `${k.imageRepository || 'registry.k8s.io/provider-os'}/manila-csi-plugin:${tag}`,
        nfs: side('nfsplugin', row.nfsCsi),
        provisioner: side('csi-provisioner', row.csiProvisioner),
        resizer: side('csi-resizer', row.csiResizer),
        nodeDriverRegistrar: side('csi-node-driver-registrar', row.csiNodeDriverRegistrar),
      },
    };
  },
  enabled: (spec) => settingsOf<ManilaCsiSettings>(spec, 'manilaCsi').enabled,
  render(spec, ctx): K8sObject[] {
    const s = settingsOf<ManilaCsiSettings>(spec, 'manilaCsi');
    const c = ctx.cloud.credential;
    const values: Record<string, string> = {
      'os-authURL': c.authUrl,
      'os-region': c.region,
      'os-applicationCredentialID': c.applicationCredentialId,
      'os-applicationCredentialSecret': c.applicationCredentialSecret,
      ...(c.caCertPem ? { 'os-certAuthorityPath': CA_PATH } : {}),
    };
    const ref = (what: string) => ({ [`csi.storage.k8s.io/${what}-secret-name`]: MANILA_SECRET, [`csi.storage.k8s.io/${what}-secret-namespace`]: KUBE_SYSTEM });
    return [
      ...manilaRbac(),
      {
        apiVersion: 'storage.k8s.io/v1',
        kind: 'CSIDriver',
        metadata: meta(MANILA_DRIVER),
        spec: { attachRequired: false, podInfoOnMount: false, fsGroupPolicy: 'None', volumeLifecycleModes: ['Persistent'] },
      },
      secret(meta(MANILA_SECRET, KUBE_SYSTEM), values),
      controllerStatefulSet(s, c.caCertPem !== undefined),
      nodeDaemonSet(s, c.caCertPem !== undefined),
      {
        apiVersion: 'storage.k8s.io/v1',
        kind: 'StorageClass',
        metadata: meta(MANILA_STORAGE_CLASS),
        provisioner: MANILA_DRIVER,
        parameters: {
          type: s.shareType,
          ...(s.shareNetworkId ? { shareNetworkID: s.shareNetworkId } : {}),
          'nfs-shareClient': s.shareClient,
          ...ref('provisioner'),
          ...ref('controller-expand'),
          ...ref('node-stage'),
          ...ref('node-publish'),
        },
        reclaimPolicy: 'Delete',
        allowVolumeExpansion: true,
      },
    ];
  },
});
