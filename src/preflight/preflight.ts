// Before an operation is accepted (create, resize, node group create, upgrade, CA rotation): what it names
// exists (a create's image, external network, keypair, fixed network), and its bill, summed from the worker
// steps' own bills (footprint.ts), is weighed against every quota the project has (headroom.ts). Nothing is
// written here: the use case throws the shortage (assess.ts) or writes; a dry-run answers the same assessment.
import type { ClusterRow } from '../db/entities/cluster.js';
import type { ClusterTemplateRow } from '../db/entities/cluster-template.js';
import type { NodeGroupRow } from '../db/entities/nodegroup.js';
import type { QuotaRepo } from '../db/repos/quotas.js';
import { errors } from '../domain/errors.js';
import { parseClusterSpec } from '../cluster-spec/parse.js';
import type { ClusterSpec } from '../cluster-spec/types.js';
import type { CallerClouds, CloudCaller } from '../openstack/caller.js';
import { isNotFound, OpenStackError } from '../openstack/http.js';
import type { NeutronClient } from '../openstack/neutron.js';
import type { NovaResourcesClient } from '../openstack/nova-resources.js';
import { assess, type Assessment, type Headrooms } from './assess.js';
import { checkNodeImage, isUuidLike, type CloudChecks } from './cloud-checks.js';
import { changeBill, createBill, rollBill, rollPhases } from './footprint.js';
import { projectHeadroom } from './headroom.js';
import { zero, type Billed, type FlavorSize, type GroupShape, type Usage } from './quotas.js';

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

export interface PreflightDeps {
  /** CLOUD_RESOURCE_CHECKS: when false the cloud is asked nothing and no quota line is checked. */
  checkCloud: boolean;
  /** Keystone's URL, for the WWW-Authenticate of a token a service refused. */
  authUrl: string;
  /** max_clusters_per_project: the cluster quota of a project without its own. */
  maxClustersPerProject: number;
  clouds: CallerClouds;
  quotas: Pick<QuotaRepo, 'clusterUsage'>;
  /** The checks of what a template or cluster names (undefined when the cloud is not asked). */
  checks: CloudChecks | undefined;
  /** The create graph's steps: their bills sum to a cluster's footprint (given by the composition root). */
  steps: readonly Billed[];
}

/** The node groups of a cluster as the bill sees them; their flavor as the worker picks it (workers/cluster/servers.ts). */
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

const flavorRefs = (bill: BillRequest): Set<string> => new Set(weighed(bill).filter((g) => g.count > 0 && g.flavor !== null).map((g) => g.flavor!));

export class Preflight {
  constructor(private readonly deps: PreflightDeps) {}

  /** The request's bill against every quota of the project; nothing is written. */
  async assess(who: Caller, input: PreflightInput): Promise<Assessment> {
    const d = this.deps;
    const clusters = input.bill.kind === 'create' ? await d.quotas.clusterUsage(who.ctx.projectId ?? '', d.maxClustersPerProject) : undefined;
    const withClusters = (h: Headrooms): Headrooms => (clusters ? { ...h, clusters } : h);
    if (!d.checkCloud) return assess(this.needsOf(input, () => ({ vcpus: 0, ram: 0 })), withClusters({}), false);
    // A change that adds no node (a resize down) asks the cloud nothing.
    if (input.bill.kind !== 'create' && weighed(input.bill).length === 0) return assess(zero(), {});
    const cloud = d.clouds.for(who);
    const { cluster: c, template: t } = input;
    if (!cloud.offers('compute')) throw errors.cloudUnavailable('Nova');
    try {
      if (input.checkResources) {
        // The node image contract, and the image's own Kubernetes version against kube_tag.
        if (d.checks) await checkNodeImage(d.checks, who, t.image_id, t.server_type, input.spec.kubernetes.version);
        if (t.external_network_id) await d.checks?.checkExternalNetwork(who, t.external_network_id);
        if (c.keypair) await checkKeypair(cloud.novaResources(), c.keypair);
        if (c.fixed_network && cloud.offers('network')) await checkNetwork(cloud.neutron(), c.fixed_network);
      }
      // Every flavor of the bill from one list (by id or by name: no probe that 404s).
      const refs = flavorRefs(input.bill);
      const flavors = refs.size > 0 ? await cloud.nova().listFlavors() : [];
      const sizes = new Map<string, FlavorSize>();
      for (const ref of refs) {
        const found = flavors.find((f) => f.id === ref) ?? flavors.find((f) => f.name === ref);
        if (!found) throw errors.flavorNotFound(ref);
        sizes.set(ref, { vcpus: found.vcpus, ram: found.ram });
      }
      const needs = this.needsOf(input, (ref) => (ref === null ? { vcpus: 0, ram: 0 } : sizes.get(ref)!));
      const headroom = await projectHeadroom(who, cloud, needs, input.spec.apiServer.dnsRecord?.zone ?? null);
      return assess(needs, withClusters(headroom));
    } catch (e) {
      throw cloudError(e, d.authUrl);
    }
  }

  /** The spec of an existing cluster as the workers parse it: its node counts, `template`, the fixed subnet's CIDR. */
  async clusterSpecOf(who: Caller, c: ClusterRow, template: ClusterTemplateRow, groups: readonly NodeGroupRow[], labels = c.labels): Promise<ClusterSpec> {
    const count = (role: string) => groups.filter((g) => g.role === role).reduce((a, g) => a + g.node_count, 0);
    const subnetCidr = await this.fixedSubnetCidr(who, c.fixed_subnet);
    return parseClusterSpec({
      template,
      cluster: { ...c, master_count: count('master'), node_count: count('worker') },
      labels,
      ...(subnetCidr !== undefined ? { subnetCidr } : {}),
    }).spec;
  }

  /**
   * The CIDR of the subnet a create names (fixed_subnet, by id or name), for the label parser (the network
   * plan's sources); undefined when it names none or the service does not ask the cloud.
   */
  async fixedSubnetCidr(who: Caller, ident: string | null): Promise<string | undefined> {
    if (!ident || !this.deps.checkCloud) return undefined;
    const cloud = this.deps.clouds.for(who);
    if (!cloud.offers('network')) throw errors.cloudUnavailable('Neutron');
    const neutron = cloud.neutron();
    try {
      const found = isUuidLike(ident) ? await neutron.subnets.find(ident) : (await neutron.subnets.list({ name: ident }))[0];
      if (!found) throw errors.subnetNotFound(ident);
      return found.cidr;
    } catch (e) {
      if (e instanceof OpenStackError && (e.retryable || e.kind === 'no_endpoint')) throw errors.cloudUnavailable(e.service);
      throw e;
    }
  }

  /** The zones the labels name are Nova's (a 400 naming the label otherwise); nothing asked when the cloud is not. */
  async checkZones(who: Caller, named: { label: string; zone: string }[]): Promise<void> {
    await this.deps.checks?.checkZones(who, named);
  }

  /** The bill of the request, its flavors' sizes given. */
  private needsOf(input: PreflightInput, size: (ref: string | null) => FlavorSize): Usage {
    const b = input.bill;
    const steps = this.deps.steps;
    const sized = new Set(weighed(b).map((g) => g.name));
    const none: FlavorSize = { vcpus: 0, ram: 0 };
    const shape = (g: GroupPlan): GroupShape => ({ name: g.name, role: g.role, count: g.count, flavor: g.count > 0 && sized.has(g.name) ? size(g.flavor) : none, runtimeVolumeGb: g.runtimeVolumeGb });
    switch (b.kind) {
      case 'create':
        return createBill(steps, input.spec, b.groups.map(shape));
      case 'change':
        return changeBill(steps, input.spec, b.before.map(shape), b.after.map(shape));
      case 'roll': {
        const groups = b.groups.map(shape);
        return groups.length === 0 ? zero() : rollBill(steps, input.spec, groups, rollPhases(groups, b.rolled, b.batch));
      }
    }
  }
}

/** What a cloud failure of a pre-check is to the API's caller: never a 500 for a cloud that is down or refuses. */
function cloudError(e: unknown, authUrl: string): unknown {
  if (e instanceof OpenStackError) {
    if (e.kind === 'unauthorized') return errors.unauthorized(authUrl);
    if (e.retryable || e.kind === 'no_endpoint') return errors.cloudUnavailable(e.service);
    if (e.kind === 'forbidden') return errors.cloudForbidden(e.service);
  }
  return e;
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
  const networks = isUuidLike(ident) ? await neutron.listNetworks({ id: ident }) : await neutron.listNetworks({ name: ident });
  if (!networks.some((n) => n.id === ident || n.name === ident)) throw errors.networkNotFound(ident);
}
