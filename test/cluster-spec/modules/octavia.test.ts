// Core modules `octavia` (provider, algorithm, health check: the API load balancer's and OCCM's) and `apiServer`
// (the port, the load balancer and who may reach it, its floating IP, the API's DNS record).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/domain/errors.js';
import { apiHostLabel } from '../../../src/cluster-spec/modules/octavia.js';
import { parseClusterSpec } from '../../../src/cluster-spec/parse.js';
import { input, UUID } from '../../support/spec-fixtures.js';
import { rejects, specOf } from '../../support/labels.js';

test('bad label values are 400s naming the label: octavia_lb_healthcheck, master_lb_allowed_cidrs, octavia_lb_algorithm', () => {
  rejects({ octavia_lb_healthcheck: 'maybe' }, 'octavia_lb_healthcheck', /boolean/);
  rejects({ master_lb_allowed_cidrs: '192.168.0.0/24,nope' }, 'master_lb_allowed_cidrs', /'nope'/);
  rejects({ octavia_provider: 'ovn', octavia_lb_algorithm: 'ROUND_ROBIN' }, 'octavia_lb_algorithm', /SOURCE_IP_PORT/);
  rejects({ octavia_lb_algorithm: 'SOURCE_IP_PORT' }, 'octavia_lb_algorithm', /amphora provider does not support/);
  rejects({ octavia_provider: 'f5' }, 'octavia_provider', /Expected one of: amphora, amphorav2, octavia, ovn/);
});

test('fields: master count, apiserver port, floating IP, allowed CIDRs', () => {
  assert.throws(() => parseClusterSpec(input({ template: { master_lb_enabled: false } })), /master_count must be 1/);
  const single = parseClusterSpec(input({ template: { master_lb_enabled: false, apiserver_port: 8443 }, cluster: { master_count: 1 }, labels: { master_lb_allowed_cidrs: '1.2.3.0/24' } }));
  assert.equal(single.spec.apiServer.loadBalancer, null);
  assert.equal(single.spec.apiServer.port, 8443);
  assert.match(single.warnings.join(), /no API load balancer/);
  const lb = parseClusterSpec(input({ labels: { master_lb_allowed_cidrs: '192.0.2.0/24, 198.51.100.0/24', master_lb_floating_ip_enabled: 'false', octavia_provider: 'ovn' } })).spec;
  assert.deepEqual(lb.apiServer.loadBalancer?.allowedCidrs, ['192.0.2.0/24', '198.51.100.0/24', '10.0.0.0/24']);
  assert.equal(lb.apiServer.floatingIp, false);
  assert.equal(lb.octavia.algorithm, 'SOURCE_IP_PORT');
});

test('octavia defaults and spellings: amphora, ROUND_ROBIN, a health monitor; octavia is amphora; the algorithm in any case', () => {
  assert.deepEqual(specOf().octavia, { provider: 'amphora', algorithm: 'ROUND_ROBIN', healthCheck: true });
  assert.equal(specOf({ labels: { octavia_provider: 'octavia' } }).octavia.provider, 'amphora');
  assert.equal(specOf({ labels: { octavia_provider: 'amphorav2' } }).octavia.provider, 'amphorav2');
  assert.deepEqual(specOf({ labels: { octavia_lb_algorithm: 'least_connections', octavia_lb_healthcheck: 'false' } }).octavia, { provider: 'amphora', algorithm: 'LEAST_CONNECTIONS', healthCheck: false });
  assert.deepEqual(specOf({ labels: { octavia_provider: 'ovn' } }).octavia, { provider: 'ovn', algorithm: 'SOURCE_IP_PORT', healthCheck: true });
});

test('the API load balancer: the octavia settings, open to all unless allowed CIDRs are given (the subnet then added once)', () => {
  const open = specOf().apiServer;
  assert.deepEqual(open, { port: 6443, loadBalancer: { provider: 'amphora', algorithm: 'ROUND_ROBIN', healthCheck: true, allowedCidrs: [] }, floatingIp: true, dnsRecord: null });
  assert.deepEqual(specOf({ labels: { master_lb_allowed_cidrs: '10.0.0.0/24,192.0.2.0/24' } }).apiServer.loadBalancer?.allowedCidrs, ['10.0.0.0/24', '192.0.2.0/24']);
  assert.deepEqual(specOf({ labels: { master_lb_allowed_cidrs: '' } }).apiServer.loadBalancer?.allowedCidrs, []);
  // The cluster's master_lb_enabled wins over the template's.
  assert.equal(specOf({ template: { master_lb_enabled: false } , cluster: { master_count: 1, master_lb_enabled: true } }).apiServer.loadBalancer?.provider, 'amphora');
  assert.equal(specOf({ cluster: { master_count: 1, master_lb_enabled: false } }).apiServer.loadBalancer, null);
});

test('the API\'s floating IP follows master_lb_floating_ip_enabled, else the floating_ip_enabled field (the cluster\'s over the template\'s)', () => {
  assert.equal(specOf({ template: { floating_ip_enabled: false } }).apiServer.floatingIp, false);
  assert.equal(specOf({ template: { floating_ip_enabled: false }, cluster: { floating_ip_enabled: true } }).apiServer.floatingIp, true);
  assert.equal(specOf({ template: { floating_ip_enabled: false }, labels: { master_lb_floating_ip_enabled: 'true' } }).apiServer.floatingIp, true);
  assert.equal(specOf({ template: { master_lb_enabled: false, floating_ip_enabled: false }, cluster: { master_count: 1 } }).apiServer.floatingIp, false);
});

test('apiserver_port: a TCP port', () => {
  for (const apiserver_port of [0, 65536, 1.5]) {
    assert.throws(() => specOf({ template: { apiserver_port } }), (e: unknown) => e instanceof ApiError && e.id === 'invalid_input' && /apiserver_port/.test(e.message), String(apiserver_port));
  }
  assert.equal(specOf({ template: { apiserver_port: null } }).apiServer.port, 6443);
});

test('api_dns_zone: the API\'s A record <name>-<uuid prefix>.<zone>; a name past 253 characters is refused', () => {
  assert.deepEqual(specOf({ labels: { api_dns_zone: 'K8s.Example.org' } }).apiServer.dnsRecord, { zone: 'k8s.example.org.', name: 'k1-5d12f6fd.k8s.example.org.' });
  rejects({ api_dns_zone: 'localhost' }, 'api_dns_zone', /DNS zone name/);
  const zone = `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.example.org`;
  assert.ok(specOf({ labels: { api_dns_zone: zone } }).apiServer.dnsRecord);
  rejects({ api_dns_zone: zone }, 'api_dns_zone', /would be longer than 253 characters/, { cluster: { name: 'x'.repeat(60) } });
  // Without a load balancer the record names the single control plane.
  assert.ok(specOf({ template: { master_lb_enabled: false }, cluster: { master_count: 1 }, labels: { api_dns_zone: 'k8s.example.org' } }).apiServer.dnsRecord);
});

test('apiHostLabel: one DNS label of at most 63 characters', () => {
  assert.equal(apiHostLabel('My_Cluster.Prod', UUID), 'my-cluster-prod-5d12f6fd');
  assert.equal(apiHostLabel('***', UUID.toUpperCase()), 'cluster-5d12f6fd');
  const long = apiHostLabel(`${'a'.repeat(53)}-b`, UUID);
  assert.equal(long, `${'a'.repeat(53)}-5d12f6fd`, 'no hyphen left where the name was cut');
  assert.ok(apiHostLabel('x'.repeat(300), UUID).length <= 63);
});
