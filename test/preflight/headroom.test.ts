// What the project uses and may use of each quota a bill needs (src/preflight/headroom.ts): asked of the
// services that keep them, only those the bill needs, with the caller's token; a service not in the
// catalog, or without the quota call (404), is not checked; other failures surface. Against the simulated
// cloud, then with clients that count what they are asked.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { CallerClouds, type CallerCloud, type CloudCaller } from '../../src/openstack/caller.js';
import { OpenStackError } from '../../src/openstack/errors.js';
import { projectHeadroom } from '../../src/preflight/headroom.js';
import { zero, type Usage } from '../../src/preflight/quotas.js';
import { startCloud, type Cloud } from '../openstack/cloud.js';

let cloud: Cloud;
let demo: CloudCaller;
before(async () => {
  cloud = await startCloud();
  const { token, context } = await cloud.login('demo');
  demo = { ctx: context, token };
});
after(() => cloud.close());

const needs = (over: Partial<Usage>): Usage => ({ ...zero(), ...over });

test('against the simulated cloud: Nova’s limits, Neutron’s quota, Cinder’s limits and Octavia’s quota for what the bill needs', async () => {
  const c = new CallerClouds({ interface: 'public', timeoutMs: 5000, keystone: { authUrl: cloud.authUrl, timeoutMs: 5000 } }).for(demo);
  const h = await projectHeadroom(demo, c, needs({ instances: 1, cores: 1, ram: 1, server_group_members: 1, port: 1, floatingip: 1, volumes: 1, load_balancer: 1, member: 1 }), null);
  for (const k of ['instances', 'cores', 'ram', 'server_groups', 'server_group_members', 'network', 'port', 'floatingip', 'security_group_rule', 'volumes', 'gigabytes', 'load_balancer', 'listener', 'pool', 'member', 'health_monitor'] as const) {
    assert.ok(h[k] && typeof h[k]!.limit === 'number' && typeof h[k]!.used === 'number', `${k}: ${JSON.stringify(h[k])}`);
  }
  assert.equal(h.server_group_members!.used, 0, 'a limit per group: nothing of it used project-wide');
  assert.equal(h.zone_recordsets, undefined, 'no DNS zone: not asked');
});

/** A cloud answering from fixed numbers, counting what it is asked. */
function fakeCloud(asked: string[], offered = ['compute', 'network', 'block-storage', 'load-balancer', 'dns'], fail: Record<string, () => never> = {}): CallerCloud {
  const call = <T>(name: string, value: T) => async () => {
    asked.push(name);
    fail[name]?.();
    return value;
  };
  const fake = {
    offers: (type: string) => offered.includes(type),
    novaResources: () => ({ limits: call('nova.limits', { maxTotalInstances: 10, totalInstancesUsed: 4, maxTotalCores: 20, totalCoresUsed: 5, maxTotalRAMSize: 51200, totalRAMUsed: 0, maxServerGroups: 10, totalServerGroupsUsed: 1, maxServerGroupMembers: 10 }) }),
    neutron: () => ({ quotaDetails: call('neutron.quota', { port: { limit: 50, used: 10, reserved: 2 }, network: { limit: 10, used: 1 } }) }),
    cinder: () => ({ limits: call('cinder.limits', { maxTotalVolumes: 10, totalVolumesUsed: 3, maxTotalVolumeGigabytes: 1000, totalGigabytesUsed: 30 }) }),
    octavia: () => ({
      quota: call('octavia.quota', { load_balancer: 5, listener: -1, pool: null, member: 100, health_monitor: 5 }),
      listLoadBalancers: call('octavia.lbs', [{}, {}]),
      listeners: { list: call('octavia.listeners', [{}]) },
      pools: { list: call('octavia.pools', [{ members: [{}, {}] }, { members: [{}] }, {}]) },
      healthMonitors: { list: call('octavia.monitors', []) },
    }),
    designate: () => ({
      listZones: call('designate.zones', [{ id: 'z1', name: 'Example.ORG.' }]),
      quotas: call('designate.quotas', { zone_recordsets: 500 }),
      listRecordsets: call('designate.recordsets', [{}, {}, {}]),
    }),
  };
  return fake as unknown as CallerCloud;
}

test('only the services the bill needs are asked; their numbers become headroom (reserved ports count as used)', async () => {
  const asked: string[] = [];
  const h = await projectHeadroom(demo, fakeCloud(asked), needs({ port: 2, load_balancer: 1, zone_recordsets: 1 }), 'example.org.');
  assert.deepEqual(asked.sort(), ['designate.quotas', 'designate.recordsets', 'designate.zones', 'neutron.quota', 'octavia.lbs', 'octavia.listeners', 'octavia.monitors', 'octavia.pools', 'octavia.quota']);
  assert.deepEqual(h.port, { limit: 50, used: 12 });
  assert.deepEqual([h.load_balancer, h.listener, h.member, h.pool], [{ limit: 5, used: 2 }, { limit: -1, used: 1 }, { limit: 100, used: 3 }, undefined]);
  assert.deepEqual(h.zone_recordsets, { limit: 500, used: 3 }, 'the zone found by name, any case');
  assert.equal(h.instances, undefined);
});

test('a service not in the catalog, a quota call answering 404 or a zone the project lacks: not checked; other failures surface', async () => {
  const notFound = () => {
    throw new OpenStackError('block-storage', 404, undefined, undefined, 'not_found', 'no limits here');
  };
  const asked: string[] = [];
  const h = await projectHeadroom(demo, fakeCloud(asked, ['compute', 'block-storage'], { 'cinder.limits': notFound }), needs({ instances: 1, volumes: 1, port: 1, zone_recordsets: 1 }), 'other.zone.');
  assert.deepEqual(Object.keys(h).sort(), ['cores', 'instances', 'ram', 'server_group_members', 'server_groups']);
  assert.ok(!asked.includes('neutron.quota') && !asked.includes('designate.zones'));
  const noZone = await projectHeadroom(demo, fakeCloud([]), needs({ zone_recordsets: 1 }), 'missing.zone.');
  assert.equal(noZone.zone_recordsets, undefined);
  const down = () => {
    throw new OpenStackError('compute', 503, undefined, undefined, 'server', 'down');
  };
  await assert.rejects(projectHeadroom(demo, fakeCloud([], undefined, { 'nova.limits': down }), needs({ instances: 1 }), null), /down/);
});
