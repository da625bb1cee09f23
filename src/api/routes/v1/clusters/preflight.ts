// Before a create or resize is accepted: the resources it names exist (flavors, image, keypair,
// networks) and the project's Nova, Neutron, Cinder and Octavia quotas leave room for its bill.
// A shortfall is one 403 naming every missing resource; nothing is written or queued.
import type { ClusterRow } from '../../../../db/entities/cluster.js';
import type { ClusterTemplateRow } from '../../../../db/entities/cluster-template.js';
import { errors } from '../../../../domain/errors.js';
import { networkPlan } from '../../../../kube/network-plan.js';
import type { ClusterSpec } from '../../../../kube/spec/types.js';
import type { CallerCloud, CloudCaller } from '../../../../openstack/caller.js';
import { isNotFound, OpenStackError } from '../../../../openstack/http.js';
import type { NeutronClient } from '../../../../openstack/neutron.js';
import type { NovaClient, NovaFlavor } from '../../../../openstack/nova.js';
import type { NovaResourcesClient } from '../../../../openstack/nova-resources.js';
import { checkNodeImage } from '../../../../openstack/template-checks.js';
import type { Services } from '../../../services.js';
import { clusterBill, shortfalls, type Bill, type FlavorSize, type Headroom } from './bill.js';

export type Caller = CloudCaller;

export interface PreflightInput {
  template: ClusterTemplateRow;
  cluster: ClusterRow;
  masterCount: number;
  nodeCount: number;
  spec: ClusterSpec;
  /** For a resize: only the nodes added are billed (no network, load balancer or groups). */
  addedWorkers?: { count: number; flavor: string | null };
}

type Quotas = Partial<Record<keyof Bill, Headroom>>;

export async function preflight(s: Services, who: Caller, input: PreflightInput): Promise<void> {
  if (!s.config.cloudResourceChecks) return;
  const templates = s.templates.cloud;
  const cloud = s.clouds.for(who);
  const { cluster: c, template: t } = input;
  if (!cloud.offers('compute')) throw errors.cloudUnavailable('Nova');
  try {
    const nova = cloud.nova();
    if (!input.addedWorkers) {
      // The node image contract, and the image's own Kubernetes version against kube_tag.
      if (templates) await checkNodeImage(templates, who, t.image_id, t.server_type, input.spec.kubernetes.version);
      if (t.external_network_id) await templates?.checkExternalNetwork(who, t.external_network_id);
      if (c.keypair) await checkKeypair(cloud.novaResources(), c.keypair);
      if (c.fixed_network && cloud.offers('network')) await checkNetwork(cloud.neutron(), c.fixed_network);
    }
    const workerFlavorName = input.addedWorkers ? input.addedWorkers.flavor : c.flavor_id;
    const workerFlavor = await flavor(nova, workerFlavorName ?? 'm1.medium');
    const masterFlavor = input.addedWorkers ? { vcpus: 0, ram: 0 } : await flavor(nova, c.master_flavor_id ?? workerFlavorName ?? 'm1.medium');
    const bill = input.addedWorkers ? resizeBill(input, workerFlavor) : createBill(input, masterFlavor, workerFlavor);
    const quotas = await projectQuotas(who, cloud);
    const missing = shortfalls(bill, quotas);
    if (missing.length > 0) throw errors.cloudQuotaShortfall(missing);
  } catch (e) {
    if (e instanceof OpenStackError) {
      if (e.kind === 'unauthorized') throw errors.unauthorized(s.config.keystone.authUrl);
      if (e.retryable || e.kind === 'no_endpoint') throw errors.cloudUnavailable(e.service);
      if (e.kind === 'forbidden') throw errors.cloudForbidden(e.service);
    }
    throw e;
  }
}

function createBill(input: PreflightInput, masterFlavor: FlavorSize, workerFlavor: FlavorSize): Bill {
  const plan = networkPlan(input.spec);
  const groups = Object.values(plan.securityGroups);
  const boot = Number.parseInt(input.cluster.labels.boot_volume_size ?? '', 10);
  return clusterBill({
    masterCount: input.masterCount,
    nodeCount: input.nodeCount,
    masterFlavor,
    workerFlavor,
    volumeSize: input.cluster.docker_volume_size,
    bootVolumeSize: Number.isFinite(boot) && boot > 0 ? boot : null,
    // Every node's own floating IP (Magnum's floating_ip_enabled, with or without an API load balancer).
    floatingIpPerNode: input.spec.nodeOps.floatingIp,
    apiLoadBalancer: plan.loadBalancer !== null,
    apiFloatingIp: plan.loadBalancer?.floatingIp ?? false,
    ownNetwork: !input.cluster.fixed_network,
    securityGroups: groups.length,
    // Neutron adds two egress rules (IPv4, IPv6) to every new group.
    securityGroupRules: groups.reduce((n, g) => n + g.rules.length + 2, 0),
  });
}

function resizeBill(input: PreflightInput, workerFlavor: FlavorSize): Bill {
  const n = input.addedWorkers!.count;
  const bill = clusterBill({
    masterCount: 0,
    nodeCount: n,
    masterFlavor: { vcpus: 0, ram: 0 },
    workerFlavor,
    volumeSize: input.cluster.docker_volume_size,
    bootVolumeSize: null,
    // Every node's own floating IP (Magnum's floating_ip_enabled, with or without an API load balancer).
    floatingIpPerNode: input.spec.nodeOps.floatingIp,
    apiLoadBalancer: false,
    apiFloatingIp: false,
    ownNetwork: false,
    securityGroups: 0,
    securityGroupRules: 0,
  });
  return { ...bill, server_groups: 0, server_group_members: 0 };
}

async function flavor(nova: NovaClient, ident: string): Promise<FlavorSize> {
  let found: NovaFlavor | undefined;
  try {
    found = await nova.getFlavor(ident);
  } catch (e) {
    if (!isNotFound(e)) throw e;
    found = (await nova.listFlavors()).find((f) => f.name === ident || f.id === ident);
  }
  if (!found) throw errors.flavorNotFound(ident);
  return { vcpus: found.vcpus, ram: found.ram };
}

async function checkKeypair(nova: NovaResourcesClient, name: string): Promise<void> {
  try {
    await nova.getKeypair(name);
  } catch (e) {
    if (isNotFound(e)) throw errors.keypairNotFound(name);
    throw e;
  }
}

async function checkNetwork(neutron: NeutronClient, ident: string): Promise<void> {
  const networks = await neutron.listNetworks();
  if (!networks.some((n) => n.id === ident || n.name === ident)) throw errors.networkNotFound(ident);
}

/** What a limit leaves, or undefined when the service does not report that limit. */
const headroom = (limit: number | undefined, used: number | undefined): Headroom | undefined => (limit === undefined ? undefined : { limit, used: used ?? 0 });

/** Each service's limits and usage for the caller's project; a service not in the catalog is skipped. */
async function projectQuotas(who: Caller, cloud: CallerCloud): Promise<Quotas> {
  const project = who.ctx.projectId ?? '';
  const out: Quotas = {};
  // A service without the quota call (404) is not checked; anything else fails the pre-flight.
  const tolerant = (p: Promise<unknown> | undefined) =>
    p?.catch((e: unknown) => {
      if (!isNotFound(e)) throw e;
    });
  const when = (type: string, check: () => Promise<void>) => (cloud.offers(type) ? check() : undefined);
  await Promise.all(
    [
      when('compute', async () => {
        const a = await cloud.novaResources().limits();
        Object.assign(
          out,
          strip({
            instances: headroom(a.maxTotalInstances, a.totalInstancesUsed),
            cores: headroom(a.maxTotalCores, a.totalCoresUsed),
            ram: headroom(a.maxTotalRAMSize, a.totalRAMUsed),
            server_groups: headroom(a.maxServerGroups, a.totalServerGroupsUsed),
            // Per group: the limit applies to each new group, which starts empty.
            server_group_members: headroom(a.maxServerGroupMembers, undefined),
          }),
        );
      }),
      when('network', async () => {
        const quota = await cloud.neutron().quotaDetails(project);
        for (const k of ['network', 'subnet', 'router', 'port', 'floatingip', 'security_group', 'security_group_rule'] as const) {
          const q = quota[k];
          if (q) out[k] = { limit: q.limit, used: q.used + (q.reserved ?? 0) };
        }
      }),
      when('block-storage', async () => {
        const a = await cloud.cinder().limits();
        if (a.maxTotalVolumes !== undefined) out.volumes = { limit: a.maxTotalVolumes, used: a.totalVolumesUsed ?? 0 };
        if (a.maxTotalVolumeGigabytes !== undefined) out.gigabytes = { limit: a.maxTotalVolumeGigabytes, used: a.totalGigabytesUsed ?? 0 };
      }),
      when('load-balancer', async () => {
        const octavia = cloud.octavia();
        const [quota, lbs] = await Promise.all([octavia.quota(project), octavia.listLoadBalancers({ project_id: project })]);
        if (typeof quota.load_balancer === 'number') out.load_balancer = { limit: quota.load_balancer, used: lbs.length };
      }),
    ].map((p) => tolerant(p)),
  );
  return out;
}

const strip = (o: Quotas): Quotas => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
