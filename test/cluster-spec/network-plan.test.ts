import { test } from 'node:test';
import assert from 'node:assert/strict';
import { networkPlan, type SecurityGroupRule } from '../../src/cluster-spec/network-plan.js';
import { parseClusterSpec } from '../../src/cluster-spec/parse.js';
import { input } from '../support/spec-fixtures.js';

const plan = (o: Parameters<typeof input>[0]) => networkPlan(parseClusterSpec(input(o)).spec);
const has = (rules: SecurityGroupRule[], p: string | null, port: number | null, remote: object) =>
  rules.some((r) => r.protocol === p && (port === null || r.portRangeMin === port) && JSON.stringify(r.remote) === JSON.stringify(remote));

test('control plane: apiserver open by default, etcd from CP only, kubelet from all nodes', () => {
  const p = plan({});
  const cp = p.securityGroups['control-plane'].rules;
  assert.ok(has(cp, 'tcp', 6443, { cidr: '0.0.0.0/0' }));
  assert.ok(has(cp, 'tcp', 2379, { group: 'control-plane' }));
  assert.ok(!has(cp, 'tcp', 2379, { group: 'worker' }));
  assert.ok(has(cp, 'tcp', 10250, { group: 'worker' }));
  assert.ok(cp.every((r) => r.direction === 'ingress'));
  const wk = p.securityGroups.worker.rules;
  assert.ok(has(wk, 'tcp', 30000, { cidr: '10.0.0.0/24' }) && has(wk, 'udp', 30000, { cidr: '10.0.0.0/24' }));
  assert.ok(!wk.some((r) => r.portRangeMin === 2379));
  assert.deepEqual(p.tags, ['cluster-id=5d12f6fd-a196-4bf0-ae4c-1f639a523a52']);
});

test('calico: BGP always; IP-in-IP only when encapsulated, else pod CIDR as allowed address pair', () => {
  const off = plan({ labels: { calico_ipv4pool: '10.200.0.0/16' } });
  assert.ok(has(off.securityGroups.worker.rules, 'tcp', 179, { group: 'control-plane' }));
  assert.ok(!has(off.securityGroups.worker.rules, '4', null, { group: 'worker' }));
  assert.ok(has(off.securityGroups.worker.rules, null, null, { cidr: '10.200.0.0/16' }));
  assert.deepEqual(off.ports.worker.allowedAddressPairs, [{ ip_address: '10.200.0.0/16' }]);
  const ipip = plan({ labels: { calico_ipv4pool_ipip: 'Always' } });
  assert.ok(has(ipip.securityGroups['control-plane'].rules, '4', null, { group: 'worker' }));
  assert.deepEqual(ipip.ports['control-plane'].allowedAddressPairs, []);
});

test('flannel: VXLAN 8472/udp, wireguard 51820/udp, host-gw needs address pairs', () => {
  assert.ok(has(plan({ network_driver: 'flannel' }).securityGroups.worker.rules, 'udp', 8472, { group: 'worker' }));
  assert.ok(has(plan({ network_driver: 'flannel', labels: { flannel_backend: 'wireguard' } }).securityGroups.worker.rules, 'udp', 51820, { group: 'control-plane' }));
  const hg = plan({ network_driver: 'flannel', labels: { flannel_backend: 'host-gw' } });
  assert.deepEqual(hg.ports.worker.allowedAddressPairs, [{ ip_address: '10.100.0.0/16' }]);
  assert.ok(!hg.securityGroups.worker.rules.some((r) => r.portRangeMin === 8472));
});

test('API LB: template port, allowed CIDRs (SG and listener), monitor, ovn NodePorts open', () => {
  const p = plan({ template: { apiserver_port: 8443 }, labels: { master_lb_allowed_cidrs: '192.0.2.0/24', octavia_provider: 'ovn', octavia_lb_healthcheck: 'false' } });
  const cp = p.securityGroups['control-plane'].rules;
  assert.ok(has(cp, 'tcp', 8443, { cidr: '192.0.2.0/24' }) && has(cp, 'tcp', 8443, { cidr: '10.0.0.0/24' }));
  assert.ok(!has(cp, 'tcp', 8443, { cidr: '0.0.0.0/0' }));
  assert.deepEqual(p.loadBalancer, {
    name: 'k1-5d12f-kubeapi',
    provider: 'ovn',
    listener: { protocol: 'TCP', port: 8443, allowedCidrs: ['192.0.2.0/24', '10.0.0.0/24'] },
    pool: { protocol: 'TCP', algorithm: 'SOURCE_IP_PORT' },
    monitor: null,
    memberPort: 8443,
    floatingIp: true,
  });
  assert.ok(has(p.securityGroups.worker.rules, 'tcp', 30000, { cidr: '0.0.0.0/0' }));
  assert.deepEqual(plan({}).loadBalancer?.monitor, { type: 'TCP', delay: 10, timeout: 5, maxRetries: 5, maxRetriesDown: 3 });
  assert.equal(plan({ template: { master_lb_enabled: false }, cluster: { master_count: 1 } }).loadBalancer, null);
});

test('monitoring: node-exporter (9100/tcp, host network) reachable from every node only when monitoring is on', () => {
  for (const g of ['control-plane', 'worker'] as const) {
    assert.ok(!has(plan({}).securityGroups[g].rules, 'tcp', 9100, { group: 'worker' }));
    const on = plan({ labels: { monitoring_enabled: 'true' } }).securityGroups[g].rules;
    assert.ok(has(on, 'tcp', 9100, { group: 'worker' }) && has(on, 'tcp', 9100, { group: 'control-plane' }));
    assert.ok(!has(on, 'tcp', 9100, { cidr: '0.0.0.0/0' }));
  }
});

test('the plan\'s shape: named groups of ingress IPv4 rules, ICMP and the kubelet from every node, each port in its role\'s group', () => {
  const p = plan({});
  assert.deepEqual([p.securityGroups['control-plane'].name, p.securityGroups.worker.name], ['k1-5d12f-secgroup-controlplane', 'k1-5d12f-secgroup-worker']);
  assert.equal(p.securityGroups.worker.description, 'Workers of cluster 5d12f6fd-a196-4bf0-ae4c-1f639a523a52');
  for (const g of ['control-plane', 'worker'] as const) {
    const rules = p.securityGroups[g].rules;
    assert.ok(rules.every((r) => r.direction === 'ingress' && r.ethertype === 'IPv4' && r.description !== ''));
    for (const from of ['control-plane', 'worker'] as const) {
      assert.ok(has(rules, 'icmp', null, { group: from }) && has(rules, 'tcp', 10250, { group: from }), `${g} from ${from}`);
    }
    assert.equal(p.ports[g].securityGroup, g);
  }
  const api = p.securityGroups['control-plane'].rules.find((r) => r.description === 'kube-apiserver')!;
  assert.deepEqual([api.portRangeMin, api.portRangeMax], [6443, 6443]);
  const nodePorts = p.securityGroups.worker.rules.find((r) => r.protocol === 'tcp' && r.portRangeMin === 30000)!;
  assert.equal(nodePorts.portRangeMax, 32767);
  assert.ok(!('portRangeMin' in p.securityGroups.worker.rules.find((r) => r.protocol === 'icmp')!), 'a rule without ports names none');
});
