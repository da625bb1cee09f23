// Before an operation is accepted (create, resize, node group create, upgrade, CA rotation): what it
// names exists (a create's flavors, image, keypair, networks), and its bill (src/kube/bill.ts) is
// weighed against every quota the project has (quota-usage.ts). Nothing is written here: the caller
// throws the shortage (bill.ts) or writes; a dry-run answers the same assessment.
import type { ClusterRow } from '../db/entities/cluster.js';
import type { ClusterTemplateRow } from '../db/entities/cluster-template.js';
import type { NodeGroupRow } from '../db/entities/nodegroup.js';
import { QuotaRepo } from '../db/repos/quotas.js';
import { errors } from '../domain/errors.js';
import { changeBill, createBill, rollBill, rollPhases, zero, type FlavorSize, type GroupShape, type Usage } from './footprint.js';
import { parseClusterSpec } from '../cluster-spec/parse.js';
import type { ClusterSpec } from '../cluster-spec/types.js';
import type { CloudCaller } from '../openstack/caller.js';
import { isNotFound, OpenStackError } from '../openstack/http.js';
import type { NeutronClient } from '../openstack/neutron.js';
import type { NovaClient, NovaFlavor } from '../openstack/nova.js';
import type { NovaResourcesClient } from '../openstack/nova-resources.js';
import { checkNodeImage } from './cloud-checks.js';
import type { Services } from '../api/services.js';
import { assess, type Assessment, type Headrooms } from './assess.js';
import { projectHeadroom } from './headroom.js';

export type Caller = CloudCaller;

/** A node group as the bill needs it: its flavor by name or id (null: none, the worker refuses to boot it). */
export interface GroupPlan {
  name: string;
  role: 'master' | 'worker';
  count: number;
  flavor: string | null;
  runtimeVolumeGb: number | null;
}

export type BillRequest =
  | { kind: 'create'; groups: GroupPlan[] }
  /** Resize, node group create: the groups before and after. */
  | { kind: 'change'; before: GroupPlan[]; after: GroupPlan[] }
  /** Upgrade, CA rotation: the groups rolled (control planes one at a time, then each by `batch`). */
  | { kind: 'roll'; groups: GroupPlan[]; rolled: string[]; batch: number };

export interface PreflightInput {
  template: ClusterTemplateRow;
  cluster: ClusterRow;
  spec: ClusterSpec;
  /** A create's checks of what the cluster names: image, external network, keypair, fixed network. */
  checkResources?: boolean;
  bill: BillRequest;
}

/** The node groups of a cluster as the bill sees them; their flavor as the worker picks it (servers.ts). */
export function groupPlans(c: ClusterRow, t: ClusterTemplateRow, groups: readonly NodeGroupRow[]): GroupPlan[] {
  return groups.map((g) => groupPlan(c, t, g));
}

export function groupPlan(c: ClusterRow, t: ClusterTemplateRow, g: Pick<NodeGroupRow, 'name' | 'role' | 'node_count' | 'flavor_id' | 'docker_volume_size'>): GroupPlan {
  const master = g.role === 'master';
  return {
    name: g.name,
    role: master ? 'master' : 'worker',
    count: g.node_count,
    flavor: g.flavor_id ?? (master ? c.master_flavor_id ?? t.master_flavor_id : c.flavor_id ?? t.flavor_id),
    runtimeVolumeGb: g.docker_volume_size ?? null,
  };
}

/** The spec of an existing cluster as the workers parse it: its node counts, `template`, the fixed subnet's CIDR. */
export async function clusterSpecOf(s: Services, who: Caller, c: ClusterRow, template: ClusterTemplateRow, groups: readonly NodeGroupRow[], labels = c.labels): Promise<ClusterSpec> {
  const count = (role: string) => groups.filter((g) => g.role === role).reduce((a, g) => a + g.node_count, 0);
  const subnetCidr = await fixedSubnetCidr(s, who, c.fixed_subnet);
  return parseClusterSpec({
    template,
    cluster: { ...c, master_count: count('master'), node_count: count('worker') },
    labels,
    ...(subnetCidr !== undefined ? { subnetCidr } : {}),
  }).spec;
}

export async function preflight(s: Services, who: Caller, input: PreflightInput): Promise<Assessment> {
  const clusters = input.bill.kind === 'create' ? await new QuotaRepo(s.db).clusterUsage(who.ctx.projectId ?? '', s.config.maxClustersPerProject) : undefined;
  const withClusters = (h: Headrooms): Headrooms => (clusters ? { ...h, clusters } : h);
  if (!s.config.cloudResourceChecks) return assess(needsOf(input, () => ({ vcpus: 0, ram: 0 })), withClusters({}), false);
  // A change that adds no node (a resize down) asks the cloud nothing.
  if (input.bill.kind !== 'create' && weighed(input.bill).length === 0) return assess(zero(), {});
  const cloud = s.clouds.for(who);
  const { cluster: c, template: t } = input;
  if (!cloud.offers('compute')) throw errors.cloudUnavailable('Nova');
  try {
    const nova = cloud.nova();
    if (input.checkResources) {
      const templates = s.templates.cloud;
      // The node image contract, and the image's own Kubernetes version against kube_tag.
      if (templates) await checkNodeImage(templates, who, t.image_id, t.server_type, input.spec.kubernetes.version);
      if (t.external_network_id) await templates?.checkExternalNetwork(who, t.external_network_id);
      if (c.keypair) await checkKeypair(cloud.novaResources(), c.keypair);
      if (c.fixed_network && cloud.offers('network')) await checkNetwork(cloud.neutron(), c.fixed_network);
    }
    const sizes = new Map<string, FlavorSize>();
    for (const ref of flavorRefs(input.bill)) sizes.set(ref, await flavor(nova, ref));
    const needs = needsOf(input, (ref) => (ref === null ? { vcpus: 0, ram: 0 } : sizes.get(ref)!));
    const headroom = await projectHeadroom(who, cloud, needs, input.spec.apiServer.dnsRecord?.zone ?? null);
    return assess(needs, withClusters(headroom));
  } catch (e) {
    if (e instanceof OpenStackError) {
      if (e.kind === 'unauthorized') throw errors.unauthorized(s.config.keystone.authUrl);
      if (e.retryable || e.kind === 'no_endpoint') throw errors.cloudUnavailable(e.service);
      if (e.kind === 'forbidden') throw errors.cloudForbidden(e.service);
    }
    throw e;
  }
}

/** The groups whose flavor weighs in the bill: every one of a create, those a change or a roll alters (the others cancel out). */
function weighed(bill: BillRequest): GroupPlan[] {
  switch (bill.kind) {
    case 'create':
      return bill.groups;
    case 'change': {
      const before = new Map(bill.before.map((g) => [g.name, g.count]));
      // A group that grows, or a new one (its server group, even without nodes).
      return bill.after.filter((g) => g.count > (before.get(g.name) ?? -1));
    }
    case 'roll':
      return bill.groups.filter((g) => bill.rolled.includes(g.name));
  }
}

function flavorRefs(bill: BillRequest): Set<string> {
  return new Set(weighed(bill).filter((g) => g.count > 0 && g.flavor !== null).map((g) => g.flavor!));
}

/** The bill of the request, its flavors' sizes given. */
function needsOf(input: PreflightInput, size: (ref: string | null) => FlavorSize): Usage {
  const b = input.bill;
  const sized = new Set(weighed(b).map((g) => g.name));
  const none: FlavorSize = { vcpus: 0, ram: 0 };
  const shape = (g: GroupPlan): GroupShape => ({ name: g.name, role: g.role, count: g.count, flavor: g.count > 0 && sized.has(g.name) ? size(g.flavor) : none, runtimeVolumeGb: g.runtimeVolumeGb });
  switch (b.kind) {
    case 'create':
      return createBill(input.spec, b.groups.map(shape));
    case 'change':
      return changeBill(input.spec, b.before.map(shape), b.after.map(shape));
    case 'roll': {
      const groups = b.groups.map(shape);
      return groups.length === 0 ? zero() : rollBill(input.spec, groups, rollPhases(groups, b.rolled, b.batch));
    }
  }
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

/**
 * The CIDR of the subnet a create names (fixed_subnet, by id or name), for the label parser (the network
 * plan's sources); undefined when it names none or the service does not ask the cloud.
 */
export async function fixedSubnetCidr(s: Services, who: Caller, ident: string | null): Promise<string | undefined> {
  if (!ident || !s.config.cloudResourceChecks) return undefined;
  const cloud = s.clouds.for(who);
  if (!cloud.offers('network')) throw errors.cloudUnavailable('Neutron');
  const neutron = cloud.neutron();
  try {
    const found = await neutron.subnets.get(ident).catch(async (e: unknown) => {
      if (!isNotFound(e)) throw e;
      return (await neutron.subnets.list({ name: ident }))[0];
    });
    if (!found) throw errors.subnetNotFound(ident);
    return found.cidr;
  } catch (e) {
    if (e instanceof OpenStackError && (e.retryable || e.kind === 'no_endpoint')) throw errors.cloudUnavailable(e.service);
    throw e;
  }
}

async function checkNetwork(neutron: NeutronClient, ident: string): Promise<void> {
  const networks = await neutron.listNetworks();
  if (!networks.some((n) => n.id === ident || n.name === ident)) throw errors.networkNotFound(ident);
}
