// Issue 18: floating_ip_enabled as Magnum meant it: every node gets a floating IP on its port
// (recorded, tagged, shown as the node's address, deleted with the node and the cluster); without
// it, only the API load balancer may get one (master_lb_floating_ip_enabled).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IsNull } from 'typeorm';
import { ClusterResourceEntity } from '../../src/db/entities/cluster-resource.js';
import { clusterTag } from '../../src/steps/naming.js';
import { api, deleteCluster, leftovers, servers, settled, withHarness, type Harness } from './lifecycle-support.js';

let h: Harness;
withHarness((x) => (h = x));

const neutron = () => h.t.cloud!.neutron;
/** The floating IPs on the cluster's node ports, by node name. */
function nodeFips(uuid: string): Map<string, { id: string; address: string; description: string; tags: string[] }> {
  const out = new Map<string, { id: string; address: string; description: string; tags: string[] }>();
  for (const name of servers(h, uuid).keys()) {
    const port = [...neutron().ports.values()].find((p) => p.name === name);
    assert.ok(port, `${name} has its port`);
    const fip = [...neutron().floatingIps.values()].find((f) => f.portId === port.id);
    if (fip) out.set(name, { id: fip.id, address: fip.floatingIpAddress, description: fip.description, tags: fip.tags });
  }
  return out;
}

async function create(name: string, body: Record<string, unknown>): Promise<string> {
  const r = await api(h, 'POST', '/v1/clusters', { cluster_template_id: h.templates.v135, name, master_count: 1, node_count: 2, ...body });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  return r.body.uuid as string;
}

test('floating_ip_enabled: each node has a floating IP, shown as its address and gone with it; disabled: only the API\'s, as the label says', async () => {
  const [every, apiOnly] = await Promise.all([create('fips', {}), create('no-fips', { floating_ip_enabled: false, labels: { kube_tag: 'v1.35.1', master_lb_floating_ip_enabled: 'true' } })]);
  const [c, d] = await Promise.all([settled(h, every, 'CREATE_COMPLETE'), settled(h, apiOnly, 'CREATE_COMPLETE')]);

  const fips = nodeFips(every);
  assert.equal(fips.size, 3, 'a floating IP per node');
  for (const [name, f] of fips) {
    assert.equal(f.description, `Magnum cluster ${every} node ${name}`);
    assert.ok(f.tags.includes(clusterTag(every)), `${name}'s is tagged`);
  }
  const ledger = await h.t.app.services.db.getRepository(ClusterResourceEntity).findBy({ cluster_id: every, type: 'floatingip', deleted_at: IsNull() });
  assert.deepEqual(ledger.map((r) => r.name).sort(), ['kubeapi', ...fips.keys()].sort(), 'recorded under the node names, beside the API\'s');
  const byRole = (role: string) => [...servers(h, every).entries()].filter(([, s]) => (s.metadata.magnum_role === 'worker') === (role === 'worker')).map(([n]) => fips.get(n)!.address).sort();
  assert.deepEqual([...c.node_addresses].sort(), byRole('worker'), 'node_addresses are the floating IPs');
  assert.deepEqual(c.master_addresses, byRole('master'));
  assert.ok(![...fips.values()].some((f) => c.api_address.includes(f.address)), 'the API has its own');

  assert.equal(nodeFips(apiOnly).size, 0, 'no node has one');
  assert.match(d.api_address, /^https:\/\/127\.24\.4\.\d+:6443$/, 'the API load balancer has one');
  for (const a of [...d.node_addresses, ...d.master_addresses]) assert.match(a, /^10\.0\.0\.\d+$/, 'private addresses');

  // A removed node's floating IP goes with it.
  const [gone] = [...servers(h, every).entries()].find(([, s]) => s.metadata.magnum_role === 'worker')!;
  const r = await api(h, 'POST', `/v1/clusters/${every}/actions/resize`, { node_count: 1, nodes_to_remove: [gone] });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  await settled(h, every, 'UPDATE_COMPLETE');
  assert.equal(neutron().floatingIps.has(fips.get(gone)!.id), false, `${gone}'s floating IP is deleted`);
  assert.equal(nodeFips(every).size, 2);

  await Promise.all([deleteCluster(h, every), deleteCluster(h, apiOnly)]);
  assert.deepEqual(leftovers(h).map((x) => `${x.service}:${x.type}:${x.id}`), []);
});
