// Core module `network`: the CNI (calico or flannel), the pod, service and subnet CIDRs and the rules between them,
// encapsulation, an existing subnet, and the template's proxy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, InvalidLabelError } from '../../../src/domain/errors.js';
import { parseClusterSpec } from '../../../src/cluster-spec/parse.js';
import { networkModule } from '../../../src/cluster-spec/modules/network.js';
import { input } from '../../support/spec-fixtures.js';
import { rejects, specOf } from '../../support/labels.js';

const invalidInput = (field: RegExp) => (e: unknown) => e instanceof ApiError && e.id === 'invalid_input' && field.test(e.message);

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

test('labels of the other CNI are warned about; flannel options resolve', () => {
  const { spec, warnings } = parseClusterSpec(input({ network_driver: 'flannel', labels: { calico_ipv4pool: '10.99.0.0/16', flannel_backend: 'host-gw', flannel_network_subnetlen: 26 } }));
  assert.equal(spec.network.driver, 'flannel');
  assert.equal(spec.network.podCidr, '10.100.0.0/16');
  assert.deepEqual(spec.network.flannel, { backend: 'host-gw', subnetLen: 26 });
  assert.equal(spec.network.encapsulated, false);
  assert.match(warnings.join('\n'), /calico_ipv4pool is ignored with network_driver=flannel/);
});

test('bad label values are 400s naming the label: calico_ipv4pool, calico_ipv4pool_ipip, flannel_backend, flannel_network_subnetlen', () => {
  rejects({ calico_ipv4pool: 'not-a-cidr' }, 'calico_ipv4pool', /Value: 'not-a-cidr'\. Expected an IPv4 CIDR/);
  rejects({ calico_ipv4pool: '10.100.0.1/16' }, 'calico_ipv4pool', /Host bits are set/);
  rejects({ calico_ipv4pool_ipip: 'sometimes' }, 'calico_ipv4pool_ipip', /Expected one of: Always, CrossSubnet, Never, Off/);
  rejects({ flannel_backend: 'udp' }, 'flannel_backend', /removed/, { network_driver: 'flannel' });
  rejects({ flannel_network_subnetlen: '99' }, 'flannel_network_subnetlen', /between 16 and 28/, { network_driver: 'flannel' });
  rejects({ flannel_network_cidr: '10.50.0.0/20', flannel_network_subnetlen: '20' }, 'flannel_network_subnetlen', /longer than the pod CIDR prefix \/20/, { network_driver: 'flannel' });
});

test('fields: the network driver is calico or flannel (flannel when the template names none)', () => {
  assert.throws(() => parseClusterSpec(input({ network_driver: 'weave' })), (e: unknown) => e instanceof ApiError && e.id === 'unsupported_network_driver');
  assert.equal(parseClusterSpec({ ...input(), template: { coe: 'kubernetes', master_lb_enabled: true } }).spec.network.driver, 'flannel');
});

test('defaults per CNI: calico unencapsulated (ipip Off), flannel VXLAN with /24 per node; only host-gw and unencapsulated calico route pods bare', () => {
  const calico = specOf().network;
  assert.deepEqual([calico.calico, calico.flannel, calico.encapsulated], [{ ipipMode: 'Off' }, undefined, false]);
  for (const [mode, encapsulated] of [['Always', true], ['CrossSubnet', true], ['Never', false], ['Off', false]] as const) {
    assert.equal(specOf({ labels: { calico_ipv4pool_ipip: mode } }).network.encapsulated, encapsulated, mode);
  }
  const flannel = specOf({ network_driver: 'flannel' }).network;
  assert.deepEqual([flannel.flannel, flannel.calico, flannel.encapsulated], [{ backend: 'vxlan', subnetLen: 24 }, undefined, true]);
  assert.equal(specOf({ network_driver: 'flannel', labels: { flannel_backend: 'wireguard' } }).network.encapsulated, true);
  assert.equal(specOf({ network_driver: 'flannel', labels: { flannel_network_cidr: '10.50.0.0/16' } }).network.podCidr, '10.50.0.0/16');
});

test('the service CIDR: /24 or larger, its tenth address the cluster DNS; the created subnet /28 or larger', () => {
  const n = specOf({ labels: { service_cluster_ip_range: '172.30.0.0/24', fixed_subnet_cidr: '192.168.10.0/28' } }).network;
  assert.deepEqual([n.serviceCidr, n.dnsServiceIp, n.subnetCidr, n.clusterDomain], ['172.30.0.0/24', '172.30.0.10', '192.168.10.0/28', 'cluster.local']);
  rejects({ service_cluster_ip_range: '172.30.0.0/25' }, 'service_cluster_ip_range', /must be \/24 or larger/);
  rejects({ fixed_subnet_cidr: '192.168.10.0/29' }, 'fixed_subnet_cidr', /must be \/28 or larger/);
});

test('an existing network or subnet: no network is created; a fixed subnet whose CIDR is unknown is refused', () => {
  assert.equal(specOf().network.createNetwork, true);
  assert.equal(specOf({ template: { fixed_network: 'net-1' } }).network.createNetwork, false);
  assert.equal(specOf({ cluster: { fixed_network: 'net-1' } }).network.createNetwork, false);
  assert.equal(parseClusterSpec({ ...input({ template: { fixed_subnet: 'sub-1' } }), subnetCidr: '172.16.0.0/24' }).spec.network.createNetwork, false);
  assert.throws(() => parseClusterSpec(input({ cluster: { fixed_subnet: 'sub-1' } })), invalidInput(/fixed_subnet.*The CIDR of the fixed subnet is unknown/));
});

test('the template\'s proxy: none unless http_proxy or https_proxy; no_proxy split; blanks and quotes refused', () => {
  assert.equal(specOf({ template: { no_proxy: 'a.example.org' } }).network.proxy, null);
  assert.deepEqual(specOf({ template: { https_proxy: 'http://proxy:3128', no_proxy: 'a.example.org,,b.example.org' } }).network.proxy, { http: '', https: 'http://proxy:3128', noProxy: ['a.example.org', 'b.example.org'] });
  assert.throws(() => specOf({ template: { http_proxy: 'http://proxy:3128 x' } }), invalidInput(/http_proxy/));
  assert.throws(() => specOf({ template: { http_proxy: 'http://proxy:3128', no_proxy: "a'b" } }), invalidInput(/no_proxy/));
});

test('the module\'s labels: each CNI\'s ignored with the other, the service range and the created subnet\'s always read', () => {
  const ignoredUnless = Object.fromEntries(Object.entries(networkModule.labels).map(([name, d]) => [name, d.ignored ?? null]));
  assert.deepEqual(ignoredUnless, {
    calico_ipv4pool: 'unless network_driver=calico',
    calico_ipv4pool_ipip: 'unless network_driver=calico',
    flannel_network_cidr: 'unless network_driver=flannel',
    flannel_backend: 'unless network_driver=flannel',
    flannel_network_subnetlen: 'unless network_driver=flannel',
    service_cluster_ip_range: null,
    fixed_subnet_cidr: 'when the cluster uses an existing subnet (fixed_subnet)',
  });
});
