// Every step's bill against what that step really made. For a table of cluster shapes (API load balancer on
// and off, floating IPs on and off, boot, etcd and runtime volumes, a fixed network, KMS, the API's DNS record
// with the ingress's wildcard, an extra node group), the create graph's steps (workers/cluster/create.ts, the
// features' included) are run one by one to their end with an in-memory run context against the simulated
// cloud, and what the project holds after each step less what it held before (the simulator's usage, quota
// by quota) must be what the step declares in its `bill` (src/preflight/quotas.ts StepBill): a step that makes
// something it does not declare, or declares something it does not make, fails here, naming itself. The
// members of a server group are a limit per group, not a sum: the server_groups step declares the largest
// group's size, which the whole graph's servers must make. (The whole cluster's bill through the API's
// dry-run, a resize, an upgrade's peak: test/scenarios/quota-bill.test.ts.)
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ProjectUsage } from '../../../cloudsim/usage.js';
import { groupPlans } from '../../../src/preflight/preflight.js';
import { QUOTA_NAMES, type BillInput, type GroupShape, type QuotaName } from '../../../src/preflight/quotas.js';
import { clusterSpec, nodeGroups, template } from '../../../src/steps/context.js';
import type { Step } from '../../../src/steps/step.js';
import { createOperation } from '../../../workers/cluster/create.js';
import { startStepCloud, stepRun, type ClusterShape, type StepCloud, type StepRun } from '../../support/run-context.js';

let cloud: StepCloud;
before(async () => {
  cloud = await startStepCloud();
  // Room for the table: every shape in a project of its own, none short of a quota.
  const sims = cloud.sims;
  sims.nova.state.defaultQuota = { ...sims.nova.state.defaultQuota, instances: -1, cores: -1, ram: -1, server_groups: -1, server_group_members: -1 };
  sims.cinder.state.defaultQuota = { ...sims.cinder.state.defaultQuota, volumes: -1, gigabytes: -1 };
  for (const k of ['network', 'subnet', 'port', 'router', 'floatingip', 'security_group', 'security_group_rule']) {
    (sims.neutron.state.defaultQuotas as Record<string, number>)[k] = -1;
  }
});
after(async () => {
  await cloud?.close();
});

/** The bill's input as the API's pre-flight computes it: the spec and the node groups with their flavors' sizes. */
async function billInput(r: StepRun): Promise<BillInput> {
  const ctx = r.ctx;
  const flavors = [...cloud.sims.nova.state.flavors.values()];
  const size = (ref: string | null) => {
    const f = flavors.find((x) => x.id === ref || x.name === ref);
    assert.ok(f, `flavor ${ref}`);
    return { vcpus: f.vcpus, ram: f.ram };
  };
  const groups: GroupShape[] = groupPlans(ctx.cluster, await template(ctx), await nodeGroups(ctx)).map((g) => ({ ...g, flavor: size(g.flavor) }));
  return { spec: await clusterSpec(ctx), groups };
}

const made = (after: ProjectUsage, before: ProjectUsage): Record<QuotaName, number> =>
  Object.fromEntries(QUOTA_NAMES.filter((q) => q !== 'clusters').map((q) => [q, after[q as keyof ProjectUsage] - before[q as keyof ProjectUsage]])) as Record<QuotaName, number>;

/** What differs between what `step` declares and what it made, quota by quota (the members of a server group aside). */
export function disagreements(step: string, declared: Partial<Record<QuotaName, number>>, actual: Partial<Record<QuotaName, number>>): string[] {
  const out: string[] = [];
  for (const q of QUOTA_NAMES) {
    if (q === 'clusters' || q === 'server_group_members') continue;
    const want = declared[q] ?? 0;
    const got = actual[q] ?? 0;
    if (want !== got) out.push(`${step}: ${q} declared ${want}, made ${got}`);
  }
  return out;
}

interface Shape extends ClusterShape {
  name: string;
  /** What the shape needs in its project before the create (a zone, a network of its own). */
  prepare?(r: StepRun): Promise<void>;
}

const SHAPES: Shape[] = [
  { name: 'lb-fip', template: { master_lb_enabled: true, floating_ip_enabled: true }, masters: 3, workers: 1 },
  { name: 'nolb-nofip', template: { master_lb_enabled: false, floating_ip_enabled: false }, masters: 1, workers: 1 },
  { name: 'nolb-fip', template: { master_lb_enabled: false, floating_ip_enabled: true }, masters: 1, workers: 2 },
  {
    name: 'volumes',
    template: { master_lb_enabled: true, floating_ip_enabled: false, docker_volume_size: 5, labels: { boot_volume_size: '10', etcd_volume_size: '3', octavia_lb_healthcheck: 'false', master_lb_floating_ip_enabled: 'true' } },
    masters: 1, workers: 2,
  },
  {
    name: 'dns-kms-ingress',
    template: { master_lb_enabled: true, floating_ip_enabled: true, labels: { api_dns_zone: 'bills.example.org.', ingress_controller: 'octavia', barbican_kms_enabled: 'true' } },
    masters: 1, workers: 1,
    async prepare(r) {
      cloud.sims.designate.state.createZone({ projectId: r.project, name: 'bills.example.org.', email: 'dns@example.org' });
    },
  },
  {
    name: 'fixed-network',
    template: { master_lb_enabled: true, floating_ip_enabled: false, labels: { master_lb_floating_ip_enabled: 'false' } },
    masters: 1, workers: 1,
    async prepare(r) {
      const n = await r.clients().neutron();
      const net = await n.networks.create({ name: 'own' } as never);
      const subnet = await n.subnets.create({ name: 'own-subnet', network_id: net.id, cidr: '10.9.0.0/24', ip_version: 4 } as never);
      Object.assign(r.db.clusters.get(r.uuid)!, { fixed_network: net.id, fixed_subnet: subnet.id });
      r.fresh();
    },
  },
  {
    name: 'extra-group', template: { master_lb_enabled: true, floating_ip_enabled: false },
    masters: 1, workers: 1, groups: [{ name: 'extra', count: 2, flavor: 'm1.large', docker_volume_size: 4 }],
  },
];

/** Runs the create graph step by step: each step's bill and what it made, the input they were computed from, the usage at the end. */
async function walk(shape: Shape): Promise<{ lines: { step: Step; declared: Partial<Record<QuotaName, number>>; made: Record<QuotaName, number> }[]; input: BillInput; start: ProjectUsage; end: ProjectUsage; ready: boolean }> {
  const r = await stepRun(cloud, { ...shape, name: shape.name });
  try {
    await shape.prepare?.(r);
    const input = await billInput(r);
    const start = r.usage();
    const lines = [];
    for (const step of createOperation.steps) {
      const before = r.usage();
      r.fresh();
      await r.run(step, { timeoutMs: 120_000 });
      lines.push({ step, declared: step.bill?.(input) ?? {}, made: made(r.usage(), before) });
    }
    const c = r.db.clusters.get(r.uuid)!.conditions;
    return { lines, input, start, end: r.usage(), ready: c.control_plane?.status === 'True' && c.workers?.status === 'True' && c.addons?.status === 'True' };
  } finally {
    r.end();
  }
}

test('the check names a step that makes something it does not declare, and one that declares what it does not make', () => {
  assert.deepEqual(disagreements('sneaky', {}, { network: 1 }), ['sneaky: network declared 0, made 1']);
  assert.deepEqual(disagreements('boastful', { port: 2, floatingip: 1 }, { port: 2 }), ['boastful: floatingip declared 1, made 0']);
  assert.deepEqual(disagreements('exact', { port: 2, server_group_members: 3 }, { port: 2 }), []);
});

for (const shape of SHAPES) {
  test(`${shape.name}: each step of the create makes exactly what its bill declares`, { timeout: 240_000 }, async () => {
    const { lines, input, start, end, ready } = await walk(shape);
    assert.ok(ready, 'the whole graph ran: every node Ready, the add-ons applied');
    const wrong = lines.flatMap((l) => disagreements(l.step.name, l.declared, l.made));
    assert.deepEqual(wrong, [], `${shape.name}: steps whose bill is not what they made`);
    // The whole cluster: something was made (the table is not vacuous), and the members of its largest server group.
    assert.ok(end.instances > start.instances && end.port > start.port);
    const members = lines.map((l) => l.declared.server_group_members ?? 0).reduce((a, b) => Math.max(a, b), 0);
    assert.equal(members, Math.max(...input.groups.map((g) => g.count)));
    assert.equal(end.server_group_members, members, 'the largest server group holds what the server_groups step declares');
  });
}
