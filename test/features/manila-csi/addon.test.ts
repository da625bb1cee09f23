// Add-on `manila-csi` (label manila_csi_enabled): ReadWriteMany volumes on Manila NFS shares, the cluster uuid in
// every share's metadata, access for the cluster subnet only.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InvalidLabelError } from '../../../src/domain/errors.js';
import { renderAddons } from '../../../src/bootstrap/addons/framework.js';
import { MANILA_DRIVER, MANILA_SECRET, MANILA_STORAGE_CLASS, manilaCsiAddon, type ManilaCsiSettings } from '../../../src/features/manila-csi/addon.js';
import { parseClusterSpec } from '../../../src/cluster-spec/parse.js';
import { addon, contextFor, find, rendered } from '../../support/addons.js';
import { validateObject } from '../../support/k8s-validate.js';
import { specOf } from '../../support/labels.js';
import { input, UUID } from '../../support/spec-fixtures.js';

test('manila-csi: NFS shares for RWX, the cluster uuid as cluster id, the credential in a Secret, a StorageClass open to the subnet only; off by default', () => {
  const labels = { manila_csi_enabled: 'true', manila_csi_share_network_id: '2A8E1C7E-0000-4000-8000-0000000000AA', manila_csi_share_type: 'cephfsnfs', container_infra_prefix: 'mirror.example.org/k8s' };
  const { spec, addons, warnings } = rendered({ labels });
  assert.deepEqual(warnings, []);
  const a = addon(addons, 'manila-csi');
  for (const o of a.objects) validateObject(o);
  const sts = a.objects.find((o) => o.kind === 'StatefulSet') as any;
  const plugin = sts.spec.template.spec.containers.find((c: { name: string }) => c.name === 'manila-csi-plugin');
  assert.equal(plugin.image, `mirror.example.org/k8s/manila-csi-plugin:${spec.kubernetes.components.cinderCsi}`);
  for (const arg of ['--drivername=nfs.manila.csi.openstack.org', '--share-protocol-selector=NFS', `--cluster-id=${UUID}`, '--fwdendpoint=unix:///csi-nfs/csi.sock']) assert.ok(plugin.args.includes(arg), arg);
  const ds = a.objects.find((o) => o.kind === 'DaemonSet') as any;
  const names = ds.spec.template.spec.containers.map((c: { name: string }) => c.name);
  assert.deepEqual(names, ['node-driver-registrar', 'manila-csi-plugin', 'nfs']);
  assert.equal(ds.spec.template.spec.containers[2].image, `mirror.example.org/k8s/nfsplugin:${spec.kubernetes.components.nfsCsi}`);
  assert.equal(ds.spec.template.spec.automountServiceAccountToken, false, 'the node plugin talks to no API');
  const sc = a.objects.find((o) => o.kind === 'StorageClass') as any;
  assert.equal(sc.provisioner, 'nfs.manila.csi.openstack.org');
  assert.equal(sc.parameters.type, 'cephfsnfs');
  assert.equal(sc.parameters.shareNetworkID, '2a8e1c7e-0000-4000-8000-0000000000aa');
  assert.equal(sc.parameters['nfs-shareClient'], spec.network.subnetCidr, 'not 0.0.0.0/0');
  assert.equal(sc.parameters['csi.storage.k8s.io/node-stage-secret-name'], 'csi-manila-secrets');
  assert.equal(sc.metadata.annotations, undefined, 'not the default class (Cinder\'s is)');
  const secret = a.objects.find((o) => o.kind === 'Secret') as any;
  const env = Object.fromEntries(Object.entries(secret.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
  assert.deepEqual(Object.keys(env).sort(), ['os-applicationCredentialID', 'os-applicationCredentialSecret', 'os-authURL', 'os-certAuthorityPath', 'os-region']);
  assert.equal(env['os-certAuthorityPath'], '/etc/manila-csi/ca.crt');
  assert.ok(!JSON.stringify([sts, ds]).includes(':"secret"'), 'the credential secret is only in the Secret');
  // Overrides and refusals.
  const client = addon(rendered({ labels: { manila_csi_enabled: 'true', manila_csi_share_client: '10.20.0.0/16' } }).addons, 'manila-csi');
  assert.equal((client.objects.find((o) => o.kind === 'StorageClass') as any).parameters['nfs-shareClient'], '10.20.0.0/16');
  const off = rendered({ labels: { manila_csi_delete_shares: 'true' } });
  assert.ok(!off.addons.some((x) => x.name === 'manila-csi'));
  assert.ok(off.warnings.some((w) => /manila_csi_delete_shares is ignored without manila_csi_enabled=true/.test(w)));
  for (const [label, value] of [['manila_csi_share_network_id', 'net-1'], ['manila_csi_share_client', 'everyone'], ['manila_csi_plugin_tag', 'v1.30.0'], ['manila_csi_enabled', 'maybe']] as const) {
    assert.throws(() => parseClusterSpec(input({ labels: { manila_csi_enabled: 'true', [label]: value } })), (e: unknown) => e instanceof InvalidLabelError && e.label === label, label);
  }
});

test('manila-csi settings: defaults (share type default, no share network, the subnet as client, shares kept), the plugin of the minor', () => {
  const s = specOf({ labels: { manila_csi_enabled: 'true', kube_tag: 'v1.36.1' } }).features.manilaCsi as ManilaCsiSettings;
  assert.deepEqual({ ...s, images: undefined }, { enabled: true, deleteShares: false, shareType: 'default', shareNetworkId: null, shareClient: '10.0.0.0/24', clusterId: UUID, images: undefined });
  assert.match(s.images.plugin, /^registry\.k8s\.io\/provider-os\/manila-csi-plugin:v1\.36\./);
  const dashless = specOf({ labels: { manila_csi_enabled: 'true', manila_csi_share_network_id: '2a8e1c7e00004000800000000000aaaa', manila_csi_delete_shares: 'true' } }).features.manilaCsi as ManilaCsiSettings;
  assert.deepEqual([dashless.shareNetworkId, dashless.deleteShares], ['2a8e1c7e00004000800000000000aaaa', true]);
  assert.equal((specOf().features.manilaCsi as ManilaCsiSettings).enabled, false);
});

test('manila-csi objects: a CSIDriver needing no attach, the StorageClass with every secret reference; no CA path without a private CA', () => {
  const spec = specOf({ labels: { manila_csi_enabled: 'true' } });
  const [a] = renderAddons([manilaCsiAddon], spec, contextFor(spec, false));
  assert.deepEqual(find<any>(a!, 'CSIDriver', MANILA_DRIVER).spec, { attachRequired: false, podInfoOnMount: false, fsGroupPolicy: 'None', volumeLifecycleModes: ['Persistent'] });
  const sc = find<any>(a!, 'StorageClass', MANILA_STORAGE_CLASS);
  for (const what of ['provisioner', 'controller-expand', 'node-stage', 'node-publish']) {
    assert.equal(sc.parameters[`csi.storage.k8s.io/${what}-secret-name`], MANILA_SECRET, what);
    assert.equal(sc.parameters[`csi.storage.k8s.io/${what}-secret-namespace`], 'kube-system', what);
  }
  assert.equal(sc.parameters.shareNetworkID, undefined);
  assert.deepEqual([sc.reclaimPolicy, sc.allowVolumeExpansion], ['Delete', true]);
  assert.ok(!('os-certAuthorityPath' in find<any>(a!, 'Secret', MANILA_SECRET).data));
  assert.ok(!JSON.stringify(a!.objects).includes('keystone-ca'), 'no CA volume either');
});
