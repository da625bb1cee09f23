// The add-on framework: §1.7 order, disabled add-ons render nothing, labels land where they should.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse, parseAllDocuments } from 'yaml';
import { InvalidLabelError } from '../../../src/domain/errors.js';
import { ORDER, renderAddons } from '../../../src/bootstrap/addons/framework.js';
import { addons as allAddons } from '../../../src/bootstrap/addons/index.js';
import { manifest } from '../../../src/bootstrap/render-all.js';
import { addonModules } from '../../../src/cluster-spec/registry.js';
import { parseClusterSpec } from '../../../src/cluster-spec/parse.js';
import { addon, contextFor, find, rendered } from '../../support/addons.js';
import { input, keystoneCa, UUID } from '../../support/spec-fixtures.js';
import { validateObject } from '../../support/k8s-validate.js';

test('add-ons are registered as feature modules and applied in spec §1.7 order', () => {
  assert.deepEqual(addonModules(), allAddons());
  assert.ok(ORDER.cloudConfig < ORDER.occm && ORDER.occm < ORDER.cni && ORDER.cni < ORDER.cinderCsi && ORDER.cinderCsi < ORDER.manilaCsi && ORDER.manilaCsi < ORDER.metricsServer);
  assert.ok(ORDER.metricsServer < ORDER.dnsAutoscaler && ORDER.dnsAutoscaler < ORDER.keystoneAuth && ORDER.keystoneAuth < ORDER.ingress && ORDER.ingress < ORDER.externalDns && ORDER.externalDns < ORDER.dashboard && ORDER.dashboard < ORDER.monitoring);
  const { spec } = parseClusterSpec(input({ labels: { ingress_controller: 'octavia', external_dns_zone: 'apps.example.org', monitoring_enabled: 'true', manila_csi_enabled: 'true', kube_dashboard_enabled: 'true' } }));
  const order = renderAddons([...allAddons()].reverse(), spec, contextFor(spec)).map((a) => a.name);
  assert.deepEqual(order, ['cloud-config', 'occm', 'cni-calico', 'cinder-csi', 'manila-csi', 'metrics-server', 'dns-autoscaler', 'keystone-auth', 'ingress', 'external-dns', 'dashboard', 'monitoring']);
});

test('a disabled add-on renders nothing', () => {
  const { addons } = rendered({ labels: { cinder_csi_enabled: 'false', metrics_server_enabled: 'no', keystone_auth_enabled: 'false', dns_autoscaler_enabled: 'false' } });
  assert.deepEqual(addons.map((a) => a.name), ['cloud-config', 'occm', 'cni-calico']);
  const all = JSON.stringify(addons);
  assert.doesNotMatch(all, /cinder\.csi\.openstack\.org|metrics-server|flannel|keystone-auth|ingress|proportional-autoscaler|external-dns|prometheus|grafana|manila|headlamp/);
  assert.throws(() => parseClusterSpec(input({ labels: { cinder_csi_enabled: 'sometimes' } })), (e: unknown) => e instanceof InvalidLabelError && e.label === 'cinder_csi_enabled');
});

test('cloud-config: Secret kube-system/cloud-config holds cloud.conf and the Keystone CA', () => {
  const { addons } = rendered();
  const [secret] = addon(addons, 'cloud-config').objects as unknown as [{ metadata: { namespace: string }; data: Record<string, string> }];
  assert.equal(secret.metadata.namespace, 'kube-system');
  const conf = Buffer.from(secret.data['cloud.conf']!, 'base64').toString();
  assert.match(conf, /^\[Global\]\nauth-url=https:\/\/keystone\.example\.org:5000\/v3\n/);
  assert.equal(Buffer.from(secret.data['ca.crt']!, 'base64').toString(), keystoneCa);
});

test('occm: control-plane DaemonSet with the cluster UUID as cluster name, SA credentials and the mounted cloud.conf', () => {
  const { spec, addons } = rendered({ labels: { cloud_provider_tag: 'v1.35.9' } });
  const occm = addon(addons, 'occm');
  assert.deepEqual(occm.objects.map((o) => o.kind), ['ServiceAccount', 'ClusterRole', 'ClusterRole', 'ClusterRoleBinding', 'ClusterRoleBinding', 'DaemonSet']);
  const pod = (occm.objects.at(-1)!.spec as any).template.spec;
  const c = pod.containers[0];
  assert.equal(c.image, 'registry.k8s.io/provider-os/openstack-cloud-controller-manager:v1.35.9');
  assert.equal(c.image, contextFor(spec).cloud.occm.image);
  for (const a of [`--cluster-name=${UUID}`, '--cloud-provider=openstack', '--use-service-account-credentials=true', '--cloud-config=/etc/config/cloud.conf']) assert.ok(c.args.includes(a), a);
  assert.deepEqual(pod.nodeSelector, { 'node-role.kubernetes.io/control-plane': '' });
  assert.ok(pod.tolerations.some((t: { key: string }) => t.key === 'node.cloudprovider.kubernetes.io/uninitialized'));
  assert.equal(pod.hostNetwork, true);
  assert.deepEqual(pod.volumes.find((v: { name: string }) => v.name === 'cloud-config-volume').secret, { secretName: 'cloud-config' });
});

test('cni-flannel: net-conf from the network spec; tags from labels; calico labels ignored', () => {
  const { addons, warnings } = rendered({ network_driver: 'flannel', labels: { flannel_network_cidr: '10.50.0.0/16', flannel_backend: 'wireguard', flannel_network_subnetlen: '26', flannel_tag: 'v0.27.9', calico_tag: 'v3.31.3' } });
  const f = addon(addons, 'cni-flannel');
  const cm = f.objects.find((o) => o.kind === 'ConfigMap') as unknown as { data: Record<string, string> };
  assert.deepEqual(JSON.parse(cm.data['net-conf.json']!), { Network: '10.50.0.0/16', SubnetLen: 26, EnableNFTables: false, Backend: { Type: 'wireguard' } });
  assert.match(JSON.stringify(f.objects), /ghcr\.io\/flannel-io\/flannel:v0\.27\.9/);
  assert.match(warnings.join('\n'), /calico_tag is ignored with network_driver=flannel/);
  const hostGw = addon(rendered({ network_driver: 'flannel', labels: { flannel_backend: 'host-gw' } }).addons, 'cni-flannel');
  assert.match(JSON.stringify(hostGw.objects), /\\"Type\\": \\"host-gw\\"/);
});

test('cni-calico: tigera-operator + Installation with the pod CIDR and IP-in-IP mode; mirror and calico_tag', () => {
  const enc = (labels: Record<string, string>) => {
    const inst = addon(rendered({ labels }).addons, 'cni-calico').objects.find((o) => o.kind === 'Installation')!;
    return (inst.spec as any).calicoNetwork.ipPools[0];
  };
  assert.deepEqual([enc({}).encapsulation, enc({ calico_ipv4pool_ipip: 'Always' }).encapsulation, enc({ calico_ipv4pool_ipip: 'CrossSubnet' }).encapsulation], ['None', 'IPIP', 'IPIPCrossSubnet']);
  assert.equal(enc({ calico_ipv4pool: '172.20.0.0/16' }).cidr, '172.20.0.0/16');
  const mirrored = addon(rendered({ labels: { container_infra_prefix: 'mirror.example.org/k8s' } }).addons, 'cni-calico');
  const inst = mirrored.objects.find((o) => o.kind === 'Installation')!.spec as { registry: string; imagePath: string };
  assert.deepEqual([inst.registry, inst.imagePath], ['mirror.example.org/', 'k8s']);
  assert.match(JSON.stringify(mirrored.objects), /"mirror\.example\.org\/k8s\/operator:v1\.40\.3"/);
  const op = mirrored.objects.find((o) => o.kind === 'Deployment')!;
  assert.ok((op.spec as any).template.spec.containers[0].args.includes('-manage-crds=true'));
  assert.throws(() => parseClusterSpec(input({ labels: { calico_tag: 'v3.21.2' } })), (e: unknown) => e instanceof InvalidLabelError && e.label === 'calico_tag');
});

test('cinder-csi: --cluster=<uuid>, default StorageClass, CSIDriver, sidecar tags from labels and mirror', () => {
  const { spec, addons } = rendered({ labels: { csi_provisioner_tag: 'v5.3.1', container_infra_prefix: 'mirror.example.org/k8s' } });
  const csi = addon(addons, 'cinder-csi');
  const text = JSON.stringify(csi.objects);
  assert.ok(text.includes(`"--cluster=${UUID}"`));
  assert.ok(text.includes('"mirror.example.org/k8s/csi-provisioner:v5.3.1"'));
  assert.ok(text.includes(`"${contextFor(spec).cloud.cinderCsi.image}"`));
  const sc = csi.objects.find((o) => o.kind === 'StorageClass')!;
  assert.equal(sc.metadata.annotations?.['storageclass.kubernetes.io/is-default-class'], 'true');
  assert.equal(sc.provisioner, 'cinder.csi.openstack.org');
  assert.ok(csi.objects.some((o) => o.kind === 'CSIDriver' && o.metadata.name === 'cinder.csi.openstack.org'));
  assert.ok(csi.objects.findIndex((o) => o.kind === 'StorageClass') > csi.objects.findIndex((o) => o.kind === 'CSIDriver'));
});

test('metrics-server: APIService + Deployment trusting kubeadm self-signed kubelet certs', () => {
  const ms = addon(rendered().addons, 'metrics-server');
  assert.ok(ms.objects.some((o) => o.kind === 'APIService' && o.metadata.name === 'v1beta1.metrics.k8s.io'));
  const d = ms.objects.find((o) => o.kind === 'Deployment')!;
  assert.ok((d.spec as any).template.spec.containers[0].args.includes('--kubelet-insecure-tls'));
});

test('dns-autoscaler: cluster-proportional-autoscaler scales kubeadm\'s CoreDNS linearly, at least 2, with only the rights it needs', () => {
  const { spec, addons } = rendered({ labels: { container_infra_prefix: 'mirror.example.org/k8s' } });
  const a = addon(addons, 'dns-autoscaler');
  const d = a.objects.find((o) => o.kind === 'Deployment')!;
  const c = (d.spec as any).template.spec.containers[0];
  assert.equal(c.image, `mirror.example.org/k8s/cluster-proportional-autoscaler:${spec.kubernetes.components.dnsAutoscaler}`);
  assert.ok(c.command.includes('--target=Deployment/coredns'));
  const params = JSON.parse(c.command.find((x: string) => x.startsWith('--default-params=')).slice('--default-params='.length));
  assert.deepEqual(params.linear, { coresPerReplica: 256, nodesPerReplica: 16, min: 2, preventSinglePointFailure: true, includeUnschedulableNodes: true });
  const role = a.objects.find((o) => o.kind === 'ClusterRole') as any;
  const verbs = role.rules.flatMap((r: { resources: string[]; verbs: string[] }) => r.resources.map((res) => `${res}:${r.verbs.join(',')}`));
  assert.deepEqual(verbs, ['nodes:list,watch', 'replicationcontrollers/scale:get,update', 'deployments/scale:get,update', 'replicasets/scale:get,update', 'configmaps:get,create']);
  for (const o of a.objects) validateObject(o);
  assert.throws(() => parseClusterSpec(input({ labels: { dns_autoscaler_enabled: 'maybe' } })), (e: unknown) => e instanceof InvalidLabelError && e.label === 'dns_autoscaler_enabled');
});

test('external-dns: Designate provider in the label\'s zone, owner id = cluster uuid, credential in a Secret (auth URL in its /v3/ form), Keystone CA mounted', () => {
  const { spec, addons, warnings } = rendered({ labels: { external_dns_zone: 'Apps.Example.org', container_infra_prefix: 'mirror.example.org/k8s' } });
  assert.deepEqual(warnings.filter((w) => /external/.test(w)), []);
  const a = addon(addons, 'external-dns');
  const d = a.objects.find((o) => o.kind === 'Deployment')! as any;
  const c = d.spec.template.spec.containers[0];
  assert.equal(c.image, `mirror.example.org/k8s/external-dns:${spec.kubernetes.components.externalDns}`);
  for (const arg of ['--provider=designate', '--domain-filter=apps.example.org', `--txt-owner-id=${UUID}`, '--registry=txt', '--policy=sync']) assert.ok(c.args.includes(arg), arg);
  assert.equal(d.spec.replicas, 1);
  assert.equal(d.spec.strategy.type, 'Recreate');
  assert.deepEqual(c.envFrom, [{ secretRef: { name: 'external-dns-openstack' } }]);
  assert.deepEqual(c.env, [{ name: 'OPENSTACK_CA_FILE', value: '/etc/external-dns/ca.crt' }]);
  assert.deepEqual(d.spec.template.spec.volumes[0].secret, { secretName: 'cloud-config', items: [{ key: 'ca.crt', path: 'ca.crt' }] });
  const secret = a.objects.find((o) => o.kind === 'Secret')! as any;
  const env = Object.fromEntries(Object.entries(secret.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
  assert.deepEqual(env, { OS_AUTH_URL: 'https://keystone.example.org:5000/v3/', OS_REGION_NAME: 'RegionOne', OS_APPLICATION_CREDENTIAL_ID: 'id', OS_APPLICATION_CREDENTIAL_SECRET: 'secret' });
  assert.doesNotMatch(JSON.stringify(d), /secret"?:\s*"secret"|OS_APPLICATION_CREDENTIAL_SECRET=/, 'the secret is only in the Secret');
  for (const o of a.objects) validateObject(o);
  // Without a private Keystone CA there is nothing to mount.
  const plain = renderAddons(allAddons(), spec, contextFor(spec, false)).find((x) => x.name === 'external-dns')!;
  const pc = (plain.objects.find((o) => o.kind === 'Deployment') as any).spec.template.spec;
  assert.equal(pc.volumes, undefined);
  assert.equal(pc.containers[0].env, undefined);
  // Off without the zone; a tag alone is a warning; a bad zone is a 400 naming the label.
  const off = rendered({ labels: { external_dns_tag: 'v0.19.1' } });
  assert.ok(!off.addons.some((x) => x.name === 'external-dns'));
  assert.ok(off.warnings.some((w) => /external_dns_tag is ignored without external_dns_zone/.test(w)));
  assert.throws(() => parseClusterSpec(input({ labels: { external_dns_zone: 'no zone' } })), (e: unknown) => e instanceof InvalidLabelError && e.label === 'external_dns_zone');
});

test('monitoring: Prometheus with Magnum\'s retention and interval labels, a volume of the named class, the scrape jobs, exporters and Grafana; off by default', () => {
  const labels = { monitoring_enabled: 'true', monitoring_retention_days: '30', monitoring_retention_size: '50', monitoring_interval_seconds: '15', monitoring_storage_class_name: 'csi-cinder-sc-delete', prometheus_tag: 'v3.6.0' };
  const { spec, addons, warnings } = rendered({ labels });
  assert.deepEqual(warnings, []);
  const a = addon(addons, 'monitoring');
  assert.equal(a.objects[0]!.kind, 'Namespace', 'the namespace comes first');
  for (const o of a.objects) validateObject(o);
  const sts = a.objects.find((o) => o.kind === 'StatefulSet')! as any;
  const c = sts.spec.template.spec.containers[0];
  assert.equal(c.image, 'quay.io/prometheus/prometheus:v3.6.0');
  assert.ok(c.args.includes('--storage.tsdb.retention.time=30d'));
  assert.ok(c.args.includes(`--storage.tsdb.retention.size=${Math.floor(50 * 1024 * 0.9)}MB`), 'samples dropped at 90% of the volume');
  assert.deepEqual(sts.spec.volumeClaimTemplates[0].spec, { accessModes: ['ReadWriteOnce'], storageClassName: 'csi-cinder-sc-delete', resources: { requests: { storage: '50Gi' } } });
  assert.ok(!sts.spec.template.spec.volumes.some((v: { name: string }) => v.name === 'data'), 'no emptyDir beside the claim');
  const config = parse((a.objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'prometheus-config') as any).data['prometheus.yml']);
  assert.equal(config.global.scrape_interval, '15s');
  assert.equal(config.global.external_labels.cluster, UUID);
  assert.deepEqual(config.scrape_configs.map((j: { job_name: string }) => j.job_name), ['kubernetes-apiservers', 'kubernetes-nodes', 'kubernetes-cadvisor', 'kubernetes-service-endpoints', 'kubernetes-pods']);
  assert.match(sts.spec.template.metadata.annotations['checksum/config'], /^[0-9a-f]{64}$/, 'a changed configuration rolls the pod');
  // Exporters are found through their annotated Services.
  for (const name of ['node-exporter', 'kube-state-metrics']) {
    const svc = a.objects.find((o) => o.kind === 'Service' && o.metadata.name === name)!;
    assert.equal(svc.metadata.annotations!['prometheus.io/scrape'], 'true', name);
  }
  const ksm = a.objects.find((o) => o.kind === 'ClusterRole' && o.metadata.name === 'magnum:kube-state-metrics') as any;
  assert.ok(!ksm.rules.some((r: { resources: string[] }) => r.resources.includes('secrets') || r.resources.includes('configmaps')), 'kube-state-metrics reads no Secrets');
  // Grafana starts with the cluster dashboard; its queries use metrics of the scraped exporters and cAdvisor.
  const dash = JSON.parse((a.objects.find((o) => o.metadata.name === 'grafana-dashboards') as any).data['cluster.json']);
  assert.ok(dash.panels.length >= 6);
  for (const p of dash.panels) assert.match(p.targets[0].expr, /\b(node_|kube_|container_)\w+/, p.title);
  assert.match((a.objects.find((o) => o.metadata.name === 'grafana-dashboard-providers') as any).data['dashboards.yaml'], /path: \/var\/lib\/grafana-dashboards/);
  // Grafana: password in a Secret, derived from the credential (stable across applies), never a label.
  const secret = a.objects.find((o) => o.kind === 'Secret' && o.metadata.name === 'grafana-admin') as any;
  const password = Buffer.from(secret.data['admin-password'], 'base64').toString();
  assert.match(password, /^[A-Za-z0-9_-]{32}$/);
  assert.equal(password, Buffer.from((addon(rendered({ labels }).addons, 'monitoring').objects.find((o) => o.metadata.name === 'grafana-admin') as any).data['admin-password'], 'base64').toString());
  const other = renderAddons(allAddons(), spec, { cloud: { ...contextFor(spec).cloud, credential: { ...contextFor(spec).cloud.credential, applicationCredentialSecret: 'other' } } });
  assert.notEqual(Buffer.from((addon(other, 'monitoring').objects.find((o) => o.metadata.name === 'grafana-admin') as any).data['admin-password'], 'base64').toString(), password);
  // Defaults: 14 days, 14 GiB on an emptyDir, 30 s.
  const d = addon(rendered({ labels: { prometheus_monitoring: 'true' } }).addons, 'monitoring');
  const ds = (d.objects.find((o) => o.kind === 'StatefulSet') as any).spec;
  assert.equal(ds.volumeClaimTemplates, undefined);
  assert.deepEqual(ds.template.spec.volumes.find((v: { name: string }) => v.name === 'data'), { name: 'data', emptyDir: { sizeLimit: '14Gi' } });
  assert.ok(ds.template.spec.containers[0].args.includes('--storage.tsdb.retention.time=14d'));
  // Off by default; tuning without the switch is a warning; bad values are 400s naming the label.
  const off = rendered({ labels: { monitoring_retention_days: '3' } });
  assert.ok(!off.addons.some((x) => x.name === 'monitoring'));
  assert.ok(off.warnings.some((w) => /monitoring_retention_days is ignored without monitoring_enabled=true/.test(w)));
  for (const [label, value] of [['monitoring_retention_days', '0'], ['monitoring_interval_seconds', 'often'], ['monitoring_storage_class_name', 'Not_A_Name'], ['monitoring_enabled', 'perhaps']] as const) {
    assert.throws(() => parseClusterSpec(input({ labels: { [label]: value } })), (e: unknown) => e instanceof InvalidLabelError && e.label === label, label);
  }
  // grafana_admin_passwd is not taken (and its value never echoed in the warning).
  const pw = rendered({ labels: { monitoring_enabled: 'true', grafana_admin_passwd: 'hunter2hunter2' } });
  assert.ok(pw.warnings.some((w) => /grafana_admin_passwd/.test(w)));
  assert.ok(!pw.warnings.some((w) => w.includes('hunter2')));
  assert.ok(!JSON.stringify(addon(pw.addons, 'monitoring').objects).includes(Buffer.from('hunter2hunter2').toString('base64')));
});

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

test('dashboard (kube_dashboard_enabled): Headlamp in-cluster, pinned, mirrored, its account bound to nothing; off by default', () => {
  assert.ok(!rendered().addons.some((a) => a.name === 'dashboard'));
  const { addons, spec } = rendered({ labels: { kube_dashboard_enabled: 'true', container_infra_prefix: 'mirror.example.org/k8s' } });
  const a = addon(addons, 'dashboard');
  assert.deepEqual(a.objects.map((o) => `${o.kind}/${o.metadata.name}`), ['ServiceAccount/headlamp', 'Deployment/headlamp', 'Service/headlamp']);
  const d = find<{ spec: { template: { spec: { serviceAccountName: string; containers: { image: string; args: string[]; ports: { containerPort: number }[] }[] } } } }>(a, 'Deployment', 'headlamp');
  const c = d.spec.template.spec.containers[0]!;
  assert.equal(c.image, `mirror.example.org/k8s/headlamp:${spec.kubernetes.components.headlamp}`);
  assert.deepEqual(c.args, ['-in-cluster', '-plugins-dir=/headlamp/plugins', '-port=4466']);
  const svc = find<{ spec: { type: string; ports: { port: number; targetPort: number }[] } }>(a, 'Service', 'headlamp');
  assert.deepEqual([svc.spec.type, svc.spec.ports[0]!.port, svc.spec.ports[0]!.targetPort], ['ClusterIP', 80, 4466]);
  assert.ok(!addons.flatMap((x) => x.objects).some((o) => /Binding$/.test(o.kind) && JSON.stringify(o).includes('headlamp')), 'every request carries its user\'s token');
  assert.equal(rendered({ labels: { kube_dashboard_enabled: 'true' } }).addons.find((x) => x.name === 'dashboard')!.objects.length, 3);
  assert.match(JSON.stringify(rendered({ labels: { kube_dashboard_enabled: 'true' } }).addons), /ghcr\.io\/headlamp-k8s\/headlamp:v0\.43\.0/);
});

test('render-all manifests are multi-document YAML that round-trips to the objects', () => {
  const { addons } = rendered();
  for (const a of addons) {
    const docs = parseAllDocuments(manifest(a.objects)).map((d) => d.toJS());
    assert.deepEqual(docs, a.objects);
  }
});

test('the validator really rejects malformed objects', () => {
  const ds = structuredClone(addon(rendered().addons, 'occm').objects.at(-1)!);
  (ds.spec as any).template.spec.containers[0].ports = [{ containerPort: 'http' }];
  assert.throws(() => validateObject(ds), /containerPort must be integer/);
  assert.throws(() => validateObject({ apiVersion: 'example.org/v1', kind: 'Thing', metadata: { name: 'x' } }), /no validator/);
});

test('version table: every minor pins add-on images, and its Calico release is one the operator table knows', async () => {
  const { CALICO_RELEASES } = await import('../../../src/bootstrap/addons/cni-calico/index.js');
  const { SUPPORTED_MINORS, VERSION_MATRIX } = await import('../../../src/cluster-spec/versions.js');
  for (const minor of SUPPORTED_MINORS) {
    const row = VERSION_MATRIX[minor];
    assert.equal(CALICO_RELEASES[row.calico], row.tigeraOperator, `${minor}: calico ${row.calico}`);
    for (const [k, v] of Object.entries(row)) assert.match(v, /^v?\d+\.\d+\.\d+/, `${minor}.${k}`);
  }
});
