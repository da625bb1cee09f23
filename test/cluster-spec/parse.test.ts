import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, InvalidLabelError } from '../../src/domain/errors.js';
import { parseClusterSpec, shortName } from '../../src/cluster-spec/parse.js';
import { labelOwners, coreModules } from '../../src/cluster-spec/registry.js';
import { defineModule, featureOf, type FeatureModule } from '../../src/cluster-spec/module.js';
import { bool, label } from '../../src/cluster-spec/labels/types.js';
import { VERSION_MATRIX } from '../../src/cluster-spec/versions.js';
import { labelTable } from '../../src/cluster-spec/labels/table.js';
import { input, UUID } from '../support/spec-fixtures.js';

function rejects(labels: Record<string, string>, name: string, pattern: RegExp, over: Parameters<typeof input>[0] = {}) {
  assert.throws(
    () => parseClusterSpec(input({ ...over, labels })),
    (e: unknown) => e instanceof InvalidLabelError && e.status === 400 && e.label === name && pattern.test(e.message),
  );
}

test('defaults: v1.35, pinned components, Magnum CIDRs, spec version', () => {
  const { spec, warnings } = parseClusterSpec(input());
  assert.equal(spec.specVersion, 1);
  assert.equal(spec.kubernetes.minor, '1.35');
  assert.equal(spec.kubernetes.version, VERSION_MATRIX['1.35'].kubernetes);
  assert.equal(spec.cloudProvider.occmTag, 'v1.35.0');
  assert.equal(spec.cloudProvider.clusterName, UUID);
  assert.equal(spec.network.podCidr, '10.100.0.0/16');
  assert.equal(spec.network.serviceCidr, '10.254.0.0/16');
  assert.equal(spec.network.subnetCidr, '10.0.0.0/24');
  assert.equal(spec.network.dnsServiceIp, '10.254.0.10');
  assert.equal(spec.apiServer.port, 6443);
  assert.deepEqual(warnings, []);
});

test('kube_tag maps to its minor row; the patch is kept', () => {
  for (const [tag, minor] of [['v1.34.2', '1.34'], ['v1.35.2', '1.35'], ['v1.36.0', '1.36']] as const) {
    const { spec } = parseClusterSpec(input({ labels: { kube_tag: tag } }));
    assert.equal(spec.kubernetes.minor, minor);
    assert.equal(spec.kubernetes.version, tag);
    assert.equal(spec.cloudProvider.cinderCsiTag, VERSION_MATRIX[minor].cinderCsi);
  }
});

test('bad label values are 400s naming the label', () => {
  rejects({ kube_tag: 'banana' }, 'kube_tag', /Invalid input for label kube_tag\. Value: 'banana'\. Expected a Kubernetes release tag/);
  rejects({ kube_tag: 'v1.33.4' }, 'kube_tag', /1\.33 is not supported/);
  rejects({ kube_tag: 'v1.23.3-rancher1' }, 'kube_tag', /release tag/);
  rejects({ calico_ipv4pool: 'not-a-cidr' }, 'calico_ipv4pool', /Value: 'not-a-cidr'\. Expected an IPv4 CIDR/);
  rejects({ calico_ipv4pool: '10.100.0.1/16' }, 'calico_ipv4pool', /Host bits are set/);
  rejects({ calico_ipv4pool_ipip: 'sometimes' }, 'calico_ipv4pool_ipip', /Expected one of: Always, CrossSubnet, Never, Off/);
  rejects({ octavia_lb_healthcheck: 'maybe' }, 'octavia_lb_healthcheck', /boolean/);
  rejects({ master_lb_allowed_cidrs: '192.168.0.0/24,nope' }, 'master_lb_allowed_cidrs', /'nope'/);
  rejects({ flannel_backend: 'udp' }, 'flannel_backend', /removed/, { network_driver: 'flannel' });
  rejects({ flannel_network_subnetlen: '99' }, 'flannel_network_subnetlen', /between 16 and 28/, { network_driver: 'flannel' });
  rejects({ container_runtime: 'host-docker' }, 'container_runtime', /dockershim/);
  rejects({ cgroup_driver: 'cgroupfs' }, 'cgroup_driver', /systemd/);
  rejects({ cloud_provider_enabled: 'false' }, 'cloud_provider_enabled', /external OpenStack cloud provider/);
  rejects({ cloud_provider_tag: 'v1.34.1' }, 'cloud_provider_tag', /1\.35 release train/);
  rejects({ availability_zone: 'zone one' }, 'availability_zone', /spaces/);
  rejects({ octavia_provider: 'ovn', octavia_lb_algorithm: 'ROUND_ROBIN' }, 'octavia_lb_algorithm', /SOURCE_IP_PORT/);
  rejects({ octavia_lb_algorithm: 'SOURCE_IP_PORT' }, 'octavia_lb_algorithm', /amphora provider does not support/);
});

test('pod, service and subnet CIDRs must not overlap', () => {
  rejects({ calico_ipv4pool: '10.254.0.0/20' }, 'calico_ipv4pool', /Overlaps the service CIDR 10\.254\.0\.0\/16/);
  rejects({ calico_ipv4pool: '10.0.0.0/8' }, 'calico_ipv4pool', /Overlaps the service CIDR/);
  rejects({ fixed_subnet_cidr: '10.100.5.0/24' }, 'calico_ipv4pool', /Value: '10\.100\.0\.0\/16'\. Overlaps the cluster subnet 10\.100\.5\.0\/24/);
  rejects({ service_cluster_ip_range: '10.0.0.0/16' }, 'service_cluster_ip_range', /Overlaps the cluster subnet/);
  rejects({ flannel_network_cidr: '10.0.0.0/16' }, 'flannel_network_cidr', /Overlaps the cluster subnet/, { network_driver: 'flannel' });
  // a user-supplied subnet: its CIDR comes from Neutron, fixed_subnet_cidr is ignored with a warning
  assert.throws(
    () => parseClusterSpec({ ...input({ cluster: { fixed_subnet: 'my-subnet' } }), subnetCidr: '10.100.0.0/24' }),
    (e: unknown) => e instanceof InvalidLabelError && e.label === 'calico_ipv4pool',
  );
  const ok = parseClusterSpec({ ...input({ cluster: { fixed_subnet: 'my-subnet' }, labels: { fixed_subnet_cidr: '192.168.0.0/24' } }), subnetCidr: '172.16.0.0/24' });
  assert.equal(ok.spec.network.subnetCidr, '172.16.0.0/24');
  assert.equal(ok.spec.network.createNetwork, false);
  assert.match(ok.warnings.join('\n'), /fixed_subnet_cidr is ignored/);
});

test('unknown and not-yet-supported labels are kept and reported, never change the spec', () => {
  const base = parseClusterSpec(input()).spec;
  const { spec, warnings } = parseClusterSpec(input({ labels: { banana: 'yes', autoscaler_tag: 'v1.35.0', kubelet_options: '--foo', draino_tag: 'abf028a' } }));
  assert.deepEqual(spec.labels.ignored, { banana: 'yes', autoscaler_tag: 'v1.35.0', kubelet_options: '--foo', draino_tag: 'abf028a' });
  assert.deepEqual({ ...spec, labels: base.labels }, base);
  assert.equal(warnings.length, 4);
  assert.match(warnings[0]!, /banana is unknown/);
  assert.match(warnings[1]!, /autoscaler_tag is not supported/);
  assert.match(warnings[2]!, /not supported/);
});

test('labels of the other CNI are warned about; flannel options resolve', () => {
  const { spec, warnings } = parseClusterSpec(input({ network_driver: 'flannel', labels: { calico_ipv4pool: '10.99.0.0/16', flannel_backend: 'host-gw', flannel_network_subnetlen: 26 } }));
  assert.equal(spec.network.driver, 'flannel');
  assert.equal(spec.network.podCidr, '10.100.0.0/16');
  assert.deepEqual(spec.network.flannel, { backend: 'host-gw', subnetLen: 26 });
  assert.equal(spec.network.encapsulated, false);
  assert.match(warnings.join('\n'), /calico_ipv4pool is ignored with network_driver=flannel/);
});

test('fields: network driver, master count, apiserver port, floating IP, allowed CIDRs', () => {
  assert.throws(() => parseClusterSpec(input({ network_driver: 'weave' })), (e: unknown) => e instanceof ApiError && e.id === 'unsupported_network_driver');
  assert.equal(parseClusterSpec({ ...input(), template: { coe: 'kubernetes', master_lb_enabled: true } }).spec.network.driver, 'flannel');
  assert.throws(() => parseClusterSpec(input({ template: { master_lb_enabled: false } })), /master_count must be 1/);
  const single = parseClusterSpec(input({ template: { master_lb_enabled: false, apiserver_port: 8443 }, cluster: { master_count: 1 }, labels: { master_lb_allowed_cidrs: '1.2.3.0/24' } }));
  assert.equal(single.spec.apiServer.loadBalancer, null);
  assert.equal(single.spec.apiServer.port, 8443);
  assert.match(single.warnings.join(), /no API load balancer/);
  const lb = parseClusterSpec(input({ labels: { master_lb_allowed_cidrs: '192.0.2.0/24, 198.51.100.0/24', master_lb_floating_ip_enabled: 'false', octavia_provider: 'ovn' } })).spec;
  assert.deepEqual(lb.apiServer.loadBalancer?.allowedCidrs, ['192.0.2.0/24', '198.51.100.0/24', '10.0.0.0/24']);
  assert.equal(lb.apiServer.floatingIp, false);
  assert.equal(lb.octavia.algorithm, 'SOURCE_IP_PORT');
  assert.throws(() => parseClusterSpec(input({ template: { coe: 'swarm' } })), (e: unknown) => e instanceof ApiError && e.id === 'unsupported_coe');
});

test('add-on modules plug in with their own label schema; duplicate labels are refused', () => {
  const addon = defineModule({
    key: 'metricsServer',
    kind: 'addon',
    labels: { metrics_server_enabled: label(bool, 'metrics-server') },
    resolve: (l) => ({ enabled: l.metrics_server_enabled ?? true }),
  });
  const mods = [...coreModules(), addon as unknown as FeatureModule];
  const { spec, warnings } = parseClusterSpec(input({ labels: { metrics_server_enabled: 'false' } }), mods);
  assert.deepEqual(featureOf(spec, addon), { enabled: false });
  assert.deepEqual(warnings, []);
  assert.throws(() => parseClusterSpec(input({ labels: { metrics_server_enabled: 'nah' } }), mods), /label metrics_server_enabled/);
  const clash = defineModule({ key: 'x', kind: 'addon', labels: { kube_tag: label(bool, '') }, resolve: () => null });
  assert.throws(() => labelOwners([...coreModules(), clash as unknown as FeatureModule]), /kube_tag is declared by both kubernetes and x/);
});

test('short names are DNS-safe', () => {
  assert.equal(shortName('My_Cluster.Prod', UUID), 'my-cluster-prod-5d12f');
  assert.equal(shortName('___', UUID), 'k8s-5d12f');
  assert.ok(shortName('a'.repeat(242), UUID).length <= 26);
});

test('a deprecated label warns; a module says a label is ignored only as its declaration says, which the label table shows', () => {
  const { spec, warnings } = parseClusterSpec(input({ labels: { prometheus_monitoring: 'true', boot_volume_type: 'fast' } }));
  assert.equal((spec.features.monitoring as { enabled: boolean }).enabled, true);
  assert.deepEqual(warnings, ['Label prometheus_monitoring is deprecated: use monitoring_enabled.', 'Label boot_volume_type is ignored without boot_volume_size.']);
  const table = labelTable();
  assert.match(table, /\| `boot_volume_type` \| supported \|[^\n]*\| ignored without boot_volume_size \|/);
  assert.match(table, /\| `prometheus_monitoring` \|[^\n]*\| always: deprecated, use monitoring_enabled\. \|/);
  const sloppy = defineModule({
    key: 'sloppy', kind: 'addon', labels: { sloppy_flag: label(bool, 'a flag') },
    resolve(l, ctx) {
      if (l.sloppy_flag !== undefined) ctx.ignore('sloppy_flag');
      return {};
    },
  });
  assert.throws(() => parseClusterSpec(input({ labels: { sloppy_flag: 'true' } }), [...coreModules(), sloppy as FeatureModule]), /declares no 'ignored'/);
});
