// Issue 19: the quota bill equals what the create really makes. A matrix of clusters (API load balancer
// on and off, floating IPs on and off, boot, etcd and runtime volumes, a fixed network, the API's DNS
// record with the ingress's wildcard and its address, a KMS key, an extra node group), each in a project
// of its own, is billed by the dry-run and then made by the workers in the simulated cloud: what the
// project holds afterwards, by the simulator's quota usage and by its audit, is the bill, resource by
// resource. A node group create and a resize hold what their bills say; an upgrade's high-water mark in
// the simulator (max_batch_size 2) is its bill; the deletes give everything back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ProjectUsage } from '../../cloudsim/usage.js';
import { passwordToken } from '../support/app.js';
import { until, withHarness, type Harness, type Json } from './lifecycle-support.js';

let h: Harness;
withHarness((x) => {
  h = x;
  // Room for the matrix: Cinder's default quota too (the harness opens Nova's and Neutron's).
  h.t.cloud!.sims.cinder.state.defaultQuota = { ...h.t.cloud!.sims.cinder.state.defaultQuota, volumes: -1, gigabytes: -1 };
}, { roomy: true });

/** The audit's resource types and the quota each counts against. */
const AUDITED: Record<string, keyof ProjectUsage> = {
  server: 'instances', server_group: 'server_groups', volume: 'volumes', network: 'network', subnet: 'subnet', router: 'router', port: 'port',
  floatingip: 'floatingip', security_group: 'security_group', loadbalancer: 'load_balancer', listener: 'listener', pool: 'pool', member: 'member',
  healthmonitor: 'health_monitor', recordset: 'zone_recordsets', secret: 'secrets',
};

interface Line { quota: keyof ProjectUsage | 'clusters'; needed: number; short: boolean }

interface Project {
  name: string;
  id: string;
  call(method: string, url: string, payload?: unknown): Promise<{ status: number; body: Json }>;
  usage(): ProjectUsage;
  audit(): Map<string, string>;
}

async function project(name: string): Promise<Project> {
  const ks = h.t.keystone.state;
  const id = ks.createProject(name);
  ks.assignRole(ks.userId('demo'), id, 'member');
  const token = await passwordToken(h.t.keystone, 'demo', 'demo-secret', name);
  const sims = h.t.cloud!.sims;
  // Neutron makes a project's default security group on its first use: the project's own, not a cluster's.
  await fetch(`${sims.urls.network}/v2.0/security-groups`, { headers: { 'x-auth-token': token } });
  const call = async (method: string, url: string, payload?: unknown) => {
    const res = await h.t.app.inject({ method: method as 'GET', url, headers: { 'x-auth-token': token, 'openstack-api-version': 'container-infra latest' }, ...(payload !== undefined ? { payload: payload as Json } : {}) });
    return { status: res.statusCode, body: res.body ? (JSON.parse(res.body) as Json) : {} };
  };
  const audit = () => new Map(sims.audit(id).projects.flatMap((p) => p.resources).filter((r) => r.service !== 'keystone').map((r) => [`${r.service}:${r.type}:${r.id}`, r.type]));
  return { name, id, call, usage: () => sims.usage(id), audit };
}

async function template(p: Project, name: string, fields: Json, labels: Record<string, string>): Promise<string> {
  const r = await p.call('POST', '/v1/clustertemplates', { name, coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', flavor_id: 'm1.small', master_flavor_id: 'm1.medium', ...fields, labels });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.uuid as string;
}

async function settled(p: Project, uuid: string, want: string): Promise<Json> {
  let last: Json = {};
  await until(`${p.name} to settle`, async () => {
    last = (await p.call('GET', `/v1/clusters/${uuid}`)).body;
    return !String(last.status).endsWith('_IN_PROGRESS');
  }, 120_000);
  assert.equal(last.status, want, `${p.name}: ${last.status_reason}`);
  return last;
}

/** A dry-run that would be accepted: its bill's needs by quota. */
async function bill(p: Project, url: string, payload: unknown): Promise<Record<string, number>> {
  const r = await p.call('POST', `/v1/dry-run/${url}`, payload);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.accepted, true, JSON.stringify(r.body.errors));
  assert.equal(r.body.checked, true);
  return Object.fromEntries((r.body.bill as Line[]).map((l) => [l.quota, l.needed]));
}

function diff(after: ProjectUsage, before: ProjectUsage): Record<string, number> {
  return Object.fromEntries(Object.keys(after).map((k) => [k, after[k as keyof ProjectUsage] - before[k as keyof ProjectUsage]]));
}

/** The audit's new resources, counted by the quota they hold. */
function auditDiff(after: Map<string, string>, before: Map<string, string>): Record<string, number> {
  const out: Record<string, number> = Object.fromEntries(Object.values(AUDITED).map((q) => [q, 0]));
  for (const [key, type] of after) if (!before.has(key) && AUDITED[type]) out[AUDITED[type]]! += 1;
  return out;
}

const without = (b: Record<string, number>, ...keys: string[]) => Object.fromEntries(Object.entries(b).filter(([k]) => !keys.includes(k)));
const only = (b: Record<string, number>, keys: string[]) => Object.fromEntries(keys.map((k) => [k, b[k] ?? 0]));

interface Case {
  name: string;
  fields: Json;
  labels: Record<string, string>;
  masters: number;
  workers: number;
  prepare?: (p: Project) => Promise<Json>;
}

const CASES: Case[] = [
  { name: 'lb-fip', fields: { master_lb_enabled: true, floating_ip_enabled: true, network_driver: 'calico' }, labels: {}, masters: 3, workers: 1 },
  { name: 'nolb-nofip', fields: { master_lb_enabled: false, floating_ip_enabled: false }, labels: {}, masters: 1, workers: 1 },
  { name: 'nolb-fip', fields: { master_lb_enabled: false, floating_ip_enabled: true }, labels: {}, masters: 1, workers: 2 },
  {
    name: 'volumes', fields: { master_lb_enabled: true, floating_ip_enabled: false, docker_volume_size: 5 },
    labels: { boot_volume_size: '10', etcd_volume_size: '3', octavia_lb_healthcheck: 'false', master_lb_floating_ip_enabled: 'true' }, masters: 1, workers: 3,
  },
  {
    name: 'dns-kms-ingress', fields: { master_lb_enabled: true, floating_ip_enabled: true, network_driver: 'calico' },
    labels: { api_dns_zone: 'bill.example.org.', ingress_controller: 'octavia', barbican_kms_enabled: 'true' }, masters: 1, workers: 1,
    async prepare(p) {
      h.t.cloud!.sims.designate.state.createZone({ projectId: p.id, name: 'bill.example.org.', email: 'dns@example.org' });
      return {};
    },
  },
  {
    name: 'fixed-network', fields: { master_lb_enabled: true, floating_ip_enabled: false }, labels: { master_lb_floating_ip_enabled: 'false' }, masters: 1, workers: 1,
    async prepare(p) {
      const token = await passwordToken(h.t.keystone, 'demo', 'demo-secret', p.name);
      const neutron = (path: string, body: Json) =>
        fetch(`${h.t.cloud!.sims.urls.network}/v2.0/${path}`, { method: 'POST', headers: { 'x-auth-token': token, 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json() as Promise<Json>);
      const net = (await neutron('networks', { network: { name: 'own' } })).network;
      const subnet = (await neutron('subnets', { subnet: { name: 'own-subnet', network_id: net.id, cidr: '10.9.0.0/24', ip_version: 4 } })).subnet;
      return { fixed_network: net.id, fixed_subnet: subnet.id };
    },
  },
];

test('the bill of a create, a node group create, a resize and an upgrade is what the cloud holds (its peak for the upgrade)', { timeout: 300_000 }, async () => {
  const made = await Promise.all(
    CASES.map(async (c) => {
      const p = await project(`bill-${c.name}`);
      const extra = (await c.prepare?.(p)) ?? {};
      const tpl = await template(p, c.name, c.fields, { kube_tag: 'v1.35.1', ...c.labels });
      const body = { cluster_template_id: tpl, name: c.name, master_count: c.masters, node_count: c.workers, ...extra };
      const baseline = { usage: p.usage(), audit: p.audit() };
      const expected = await bill(p, 'clusters', body);
      const r = await p.call('POST', '/v1/clusters', body);
      assert.equal(r.status, 202, JSON.stringify(r.body));
      return { c, p, tpl, uuid: r.body.uuid as string, baseline, expected };
    }),
  );

  // Every cluster made: the project holds its bill, by the quota usage and by the audit.
  await Promise.all(
    made.map(async ({ c, p, uuid, baseline, expected }) => {
      await settled(p, uuid, 'CREATE_COMPLETE');
      assert.equal(expected.clusters, 1);
      assert.deepEqual(diff(p.usage(), baseline.usage), without(expected, 'clusters'), `${c.name}: usage`);
      assert.deepEqual(auditDiff(p.audit(), baseline.audit), only(expected, Object.values(AUDITED)), `${c.name}: audit`);
    }),
  );
  const byName = (n: string) => made.find((m) => m.c.name === n)!;

  // The API's address comes with the cases' differences: no load balancer, no floating IP, a fixed network.
  assert.equal(byName('nolb-nofip').expected.floatingip, 0);
  assert.equal(byName('nolb-fip').expected.floatingip, 3, 'a floating IP per node, the API’s being its control plane’s');
  assert.deepEqual(only(byName('fixed-network').expected, ['network', 'subnet', 'router']), { network: 0, subnet: 0, router: 0 });
  assert.deepEqual(only(byName('dns-kms-ingress').expected, ['zone_recordsets', 'secrets', 'floatingip']), { zone_recordsets: 2, secrets: 1, floatingip: 4 });

  await Promise.all([
    (async () => {
      // An extra node group, then its resize: each holds what its bill adds.
      const { p, uuid } = byName('lb-fip');
      const group = { name: 'extra', node_count: 2, flavor_id: 'm1.large', docker_volume_size: 4 };
      const before = p.usage();
      const expected = await bill(p, `clusters/${uuid}/nodegroups`, group);
      assert.equal((await p.call('POST', `/v1/clusters/${uuid}/nodegroups`, group)).status, 202);
      await settled(p, uuid, 'UPDATE_COMPLETE');
      const grown = p.usage();
      assert.deepEqual(without(diff(grown, before), 'server_group_members'), without(expected, 'clusters', 'server_group_members'), 'node group create');
      assert.equal(expected.server_group_members, 2, 'the new group’s members');
      const resize = await bill(p, `clusters/${uuid}/actions/resize`, { node_count: 3, nodegroup: 'extra' });
      assert.equal((await p.call('POST', `/v1/clusters/${uuid}/actions/resize`, { node_count: 3, nodegroup: 'extra' })).status, 202);
      await settled(p, uuid, 'UPDATE_COMPLETE');
      assert.deepEqual(without(diff(p.usage(), grown), 'server_group_members'), without(resize, 'clusters', 'server_group_members'), 'resize');
      assert.equal(resize.server_group_members, 3);
    })(),
    (async () => {
      // An upgrade with max_batch_size 2: the simulator's high-water mark is the bill (a control plane first, then two workers).
      const { p, uuid, c } = byName('volumes');
      const to = await template(p, 'volumes-136', c.fields, { kube_tag: 'v1.36.0', ...c.labels });
      const body = { cluster_template: to, max_batch_size: 2 };
      const expected = await bill(p, `clusters/${uuid}/actions/upgrade`, body);
      const before = p.usage();
      const watch = h.t.cloud!.sims.watchUsage(p.id);
      try {
        assert.equal((await p.call('POST', `/v1/clusters/${uuid}/actions/upgrade`, body)).status, 202);
        await settled(p, uuid, 'UPDATE_COMPLETE');
        const peak = diff(watch.peak(), before);
        // server_group_members is the fullest group's size, not a sum: the peak is its size then.
        assert.deepEqual(without(peak, 'server_group_members'), without(expected, 'clusters', 'server_group_members'), 'upgrade peak');
        assert.equal(watch.peak().server_group_members, expected.server_group_members);
        assert.deepEqual(only(expected, ['instances', 'volumes', 'gigabytes', 'port', 'member']), { instances: 2, volumes: 4, gigabytes: 30, port: 2, member: 1 });
      } finally {
        watch.stop();
      }
      assert.deepEqual(p.usage(), before, 'after the roll the cluster holds what it held');
    })(),
  ]);

  // The deletes give everything back.
  await Promise.all(
    made.map(async ({ p, uuid, baseline }) => {
      assert.equal((await p.call('DELETE', `/v1/clusters/${uuid}`)).status, 204);
      await until(`${p.name} gone`, async () => (await p.call('GET', `/v1/clusters/${uuid}`)).status === 404, 120_000);
      const left = p.usage();
      assert.deepEqual(left, { ...baseline.usage, zone_recordsets: left.zone_recordsets }, `${p.name}: nothing left`);
    }),
  );
});
