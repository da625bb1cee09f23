// The cluster's network (network, subnet, router with the external gateway, router interface)
// unless it names a fixed one, and its two security groups with the rules of the network plan;
// their purges, found by the ledger, the cluster tag and their deterministic names.
import { networkPlan, type GroupRef, type NetworkPlan } from '../../src/cluster-spec/network-plan.js';
import { isNotFound } from '../../src/openstack/errors.js';
import type { NeutronClient } from '../../src/openstack/neutron.js';
import { StepFailure } from '../../src/steps/errors.js';
import { clusterDescription, clusterTag, resourceName, type Role } from '../../src/steps/naming.js';
import type { RunContext, Step } from '../../src/steps/step.js';
import { clusterSpec, findNetwork, findSubnet, template } from '../../src/steps/context.js';
import { ensure, purge, type Named } from '../../src/steps/ensure.js';

const tagger = (n: NeutronClient, resource: 'networks' | 'subnets' | 'routers' | 'security-groups', uuid: string) => (id: string) =>
  n.addTag(resource, id, clusterTag(uuid));

export const ensureNetwork: Step = {
  name: 'network',
  after: [],
  condition: 'network',
  /** Its own network, subnet and router, and the router's interface on the subnet (a port). */
  bill: ({ spec }) => (spec.network.createNetwork ? { network: 1, subnet: 1, router: 1, port: 1 } : {}),
  async run(ctx) {
    const c = ctx.cluster;
    if (c.conditions.network?.status === 'True') return;
    const n = await ctx.cloud().neutron();
    if (c.fixed_network || c.fixed_subnet) {
      await ctx.setCondition('network', 'True', 'Ready', `Using the fixed network ${c.fixed_network ?? c.fixed_subnet}.`);
      return;
    }
    await ctx.setCondition('network', 'Unknown', 'Creating', 'Creating the network, subnet and router.');
    const t = await template(ctx);
    const spec = await clusterSpec(ctx);
    const name = (role: Role) => resourceName(c, role);
    const description = clusterDescription(c.uuid);
    if (!t.external_network_id) throw new StepFailure('InvalidRequest', 'The cluster template names no external network.', 'network');
    const external = await findNetwork(n, t.external_network_id);
    if (!external) throw new StepFailure('NotFound', `External network ${t.external_network_id} not found.`, 'network');

    const network = await ensure(ctx, {
      step: 'network', service: 'network', type: 'network', name: name('network'),
      get: (id) => n.networks.get(id),
      findByName: () => n.listNetworks({ name: name('network') }),
      create: () => n.networks.create({ name: name('network'), description, admin_state_up: true }),
      tag: tagger(n, 'networks', c.uuid),
    });
    const dns = (t.dns_nameserver ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    const subnet = await ensure(ctx, {
      step: 'network', service: 'network', type: 'subnet', name: name('subnet'),
      get: (id) => n.subnets.get(id),
      findByName: () => n.subnets.list({ name: name('subnet') }),
      create: () =>
        n.subnets.create({ name: name('subnet'), description, network_id: network.id, cidr: spec.network.subnetCidr, ip_version: 4, dns_nameservers: dns }),
      tag: tagger(n, 'subnets', c.uuid),
    });
    const router = await ensure(ctx, {
      step: 'network', service: 'network', type: 'router', name: name('router'),
      get: (id) => n.routers.get(id),
      findByName: () => n.routers.list({ name: name('router') }),
      create: () => n.routers.create({ name: name('router'), description, external_gateway_info: { network_id: external.id } }),
      tag: tagger(n, 'routers', c.uuid),
    });
    // The interface: present when one of the router's ports has an address on the subnet.
    const ports = await n.ports.list({ device_id: router.id, network_id: network.id });
    const attached = ports.find((p) => (p.fixed_ips ?? []).some((ip) => ip.subnet_id === subnet.id));
    if (attached) {
      await ctx.ledger.record({ service: 'network', type: 'router_interface', cloudId: attached.id, name: router.id, step: 'network' });
    } else {
      const added = await n.addRouterInterface(router.id, { subnet_id: subnet.id });
      await ctx.ledger.record({ service: 'network', type: 'router_interface', cloudId: added.port_id, name: router.id, step: 'network' });
    }
    await ctx.setCondition('network', 'True', 'Ready', `Network ${network.id}, subnet ${subnet.cidr}, router ${router.id}.`);
  },
};

/** A rule as Neutron shows it, for comparing wanted and present rules. */
const ruleKey = (r: { direction?: string | null; ethertype?: string | null; protocol?: string | null; port_range_min?: number | null; port_range_max?: number | null; remote_ip_prefix?: string | null; remote_group_id?: string | null }) =>
  [r.direction, r.ethertype, r.protocol ?? null, r.port_range_min ?? null, r.port_range_max ?? null, r.remote_ip_prefix ?? null, r.remote_group_id ?? null].join('|');

export const SG_ROLE: Record<GroupRef, Role> = { 'control-plane': 'secgroup-controlplane', worker: 'secgroup-worker' };

export const ensureSecurityGroups: Step = {
  name: 'security_groups',
  after: [],
  condition: 'security_groups',
  /** The plan's groups with their rules, and the two egress rules (IPv4, IPv6) Neutron gives every new group. */
  bill: ({ spec }) => {
    const groups = Object.values(networkPlan(spec).securityGroups);
    return { security_group: groups.length, security_group_rule: groups.reduce((n, g) => n + g.rules.length + 2, 0) };
  },
  async run(ctx) {
    const c = ctx.cluster;
    if (c.conditions.security_groups?.status === 'True') return;
    const n = await ctx.cloud().neutron();
    await ctx.setCondition('security_groups', 'Unknown', 'Creating', 'Creating the control-plane and worker security groups.');
    let subnetCidr: string | undefined;
    if (c.fixed_subnet) subnetCidr = (await findSubnet(n, c.fixed_subnet))?.cidr ?? undefined;
    const plan: NetworkPlan = networkPlan(await clusterSpec(ctx, subnetCidr));
    // Both groups first: rules name each other as remote groups.
    const ids = {} as Record<GroupRef, string>;
    for (const g of ['control-plane', 'worker'] as const) {
      const name = resourceName(c, SG_ROLE[g]);
      const sg = await ensure(ctx, {
        step: 'security_groups', service: 'network', type: 'security_group', name,
        get: (id) => n.securityGroups.get(id),
        findByName: () => n.securityGroups.list({ name }),
        create: () => n.securityGroups.create({ name, description: plan.securityGroups[g].description }),
        tag: tagger(n, 'security-groups', c.uuid),
      });
      ids[g] = sg.id;
    }
    // What each group lacks, made in one bulk POST per group (all or none: a retry after a lost answer
    // reads the rules again and finds them all there or none).
    for (const g of ['control-plane', 'worker'] as const) {
      const present = new Set((await n.securityGroupRules.list({ security_group_id: ids[g] })).map(ruleKey));
      const missing = plan.securityGroups[g].rules
        .map((r) => ({
          security_group_id: ids[g],
          direction: r.direction,
          ethertype: r.ethertype,
          protocol: r.protocol,
          port_range_min: r.portRangeMin ?? null,
          port_range_max: r.portRangeMax ?? null,
          remote_ip_prefix: 'cidr' in r.remote ? r.remote.cidr : null,
          remote_group_id: 'group' in r.remote ? ids[r.remote.group] : null,
          description: r.description,
        }))
        // Neutron refuses a bulk with two alike (DuplicateSecurityGroupRuleInPost): each key once.
        .filter((body) => !present.has(ruleKey(body)) && present.add(ruleKey(body)));
      if (missing.length > 0) await n.createSecurityGroupRules(missing);
    }
    await ctx.setCondition('security_groups', 'True', 'Ready', `Security groups ${ids['control-plane']} (control plane) and ${ids.worker} (workers).`);
  },
};

/** Neutron's list of one resource, by the cluster tag and by the deterministic name of each role. */
async function neutronFinds<T extends Named>(ctx: RunContext, list: (filters: Record<string, string>) => Promise<T[]>, roles: Role[]): Promise<T[]> {
  const all = await list({ tags: clusterTag(ctx.cluster.uuid) });
  for (const role of roles) all.push(...(await list({ name: resourceName(ctx.cluster, role) })));
  return all;
}

/** Delete: interfaces off, gateway cleared, router deleted (its interfaces' rows with it). */
export const purgeRouters: Step = {
  name: 'routers',
  run: (ctx) =>
    purge(ctx, {
      service: 'network', type: 'router', children: ['router_interface'],
      client: (cloud) => cloud.neutron(),
      find: (n) => neutronFinds(ctx, (f) => n.routers.list(f), ['router']),
      delete: deleteRouter,
    }),
};

async function deleteRouter(n: NeutronClient, id: string): Promise<boolean> {
  let router;
  try {
    router = await n.routers.get(id);
  } catch (e) {
    if (isNotFound(e)) return false;
    throw e;
  }
  for (const p of await n.ports.list({ device_id: id })) {
    if (!(p.device_owner ?? '').startsWith('network:router_interface')) continue;
    await n.removeRouterInterface(id, { port_id: p.id }).catch((e: unknown) => {
      if (!isNotFound(e)) throw e;
    });
  }
  if (router.external_gateway_info) await n.setRouterGateway(id, null);
  return n.routers.delete(id);
}

function purgeNeutron(name: string, type: 'subnet' | 'network', resource: 'subnets' | 'networks'): Step {
  return {
    name,
    run: (ctx) =>
      purge(ctx, {
        service: 'network', type,
        client: (cloud) => cloud.neutron(),
        find: (n) => neutronFinds(ctx, (f) => n[resource].list(f) as Promise<Named[]>, [type]),
        delete: (n, id) => n[resource].delete(id),
      }),
  };
}

export const purgeSubnets = purgeNeutron('subnets', 'subnet', 'subnets');
export const purgeNetworks = purgeNeutron('networks', 'network', 'networks');

/** The two groups name each other as remote groups (409 SecurityGroupInUse): the other group's rules naming one go first. */
export const purgeSecurityGroups: Step = {
  name: 'security_groups',
  run: (ctx) =>
    purge(ctx, {
      service: 'network', type: 'security_group',
      client: (cloud) => cloud.neutron(),
      find: (n) => neutronFinds(ctx, (f) => n.securityGroups.list(f), Object.values(SG_ROLE)),
      async delete(n, id) {
        for (const rule of await n.securityGroupRules.list({ remote_group_id: id })) {
          if (rule.security_group_id !== id) await n.securityGroupRules.delete(rule.id);
        }
        return n.securityGroups.delete(id);
      },
    }),
};
