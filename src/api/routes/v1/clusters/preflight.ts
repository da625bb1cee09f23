// Before a create or resize is accepted: the resources it names exist (flavors, image, keypair,
// networks) and the project's Nova, Neutron, Cinder and Octavia quotas leave room for its bill.
// A shortfall is one 403 naming every missing resource; nothing is written or queued.
import type { ClusterRow } from '../../../../db/entities/cluster.js';
import type { ClusterTemplateRow } from '../../../../db/entities/cluster-template.js';
import { errors } from '../../../../domain/errors.js';
import type { AuthContext } from '../../../../keystone/context.js';
import { networkPlan } from '../../../../kube/network-plan.js';
import type { ClusterSpec } from '../../../../kube/spec/types.js';
import { isNotFound, OpenStackError, requestJson, sessionFor, type Session } from '../../../../openstack/http.js';
import { NovaClient, type NovaFlavor } from '../../../../openstack/nova.js';
import { checkNodeImage } from '../../../../openstack/template-checks.js';
import type { Services } from '../../../services.js';
import { clusterBill, shortfalls, type Bill, type FlavorSize, type Headroom } from './bill.js';

export interface Caller {
  ctx: AuthContext;
  token: string;
}

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
  const cloud = s.templates.cloud;
  const session = (type: string): Session | undefined => {
    try {
      const found = sessionFor(who.ctx.catalog, who.token, type, {
        timeoutMs: s.config.openstack.timeoutMs,
        interface: s.config.openstack.interface,
        ...(s.config.openstack.region ? { region: s.config.openstack.region } : {}),
      });
      // Cinder's catalog URL may still carry the project placeholder.
      return { ...found, baseUrl: found.baseUrl.replace(/[%$]\((project_id|tenant_id)\)s/g, who.ctx.projectId ?? '') };
    } catch {
      return undefined;
    }
  };
  const { cluster: c, template: t } = input;
  const compute = session('compute');
  if (!compute) throw errors.cloudUnavailable('Nova');
  const nova = new NovaClient(compute);
  try {
    if (!input.addedWorkers) {
      // The node image contract, and the image's own Kubernetes version against kube_tag.
      if (cloud) await checkNodeImage(cloud, who, t.image_id, t.server_type, input.spec.kubernetes.version);
      if (t.external_network_id) await cloud?.checkExternalNetwork(who, t.external_network_id);
      if (c.keypair) await checkKeypair(compute, c.keypair);
      const network = session('network');
      if (c.fixed_network && network) await checkNetwork(network, c.fixed_network);
    }
    const workerFlavorName = input.addedWorkers ? input.addedWorkers.flavor : c.flavor_id;
    const workerFlavor = await flavor(nova, workerFlavorName ?? 'm1.medium');
    const masterFlavor = input.addedWorkers ? { vcpus: 0, ram: 0 } : await flavor(nova, c.master_flavor_id ?? workerFlavorName ?? 'm1.medium');
    const bill = input.addedWorkers ? resizeBill(input, workerFlavor) : createBill(input, masterFlavor, workerFlavor);
    const quotas = await projectQuotas(who, session);
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
    floatingIpPerNode: input.cluster.floating_ip_enabled && !input.cluster.master_lb_enabled,
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
    floatingIpPerNode: input.cluster.floating_ip_enabled && !input.cluster.master_lb_enabled,
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

async function checkKeypair(compute: Session, name: string): Promise<void> {
  try {
    await requestJson(compute, { path: `/os-keypairs/${encodeURIComponent(name)}` });
  } catch (e) {
    if (isNotFound(e)) throw errors.keypairNotFound(name);
    throw e;
  }
}

async function checkNetwork(network: Session, ident: string): Promise<void> {
  const res = await requestJson<{ networks: { id: string; name: string }[] }>(network, { path: '/v2.0/networks', query: { fields: ['id', 'name'] } });
  if (!res.body.networks.some((n) => n.id === ident || n.name === ident)) throw errors.networkNotFound(ident);
}

/** Each service's limits and usage for the caller's project; a service not in the catalog is skipped. */
async function projectQuotas(who: Caller, session: (type: string) => Session | undefined): Promise<Quotas> {
  const project = who.ctx.projectId ?? '';
  const out: Quotas = {};
  const compute = session('compute');
  const network = session('network');
  const volume = session('block-storage') ?? session('volumev3');
  const lb = session('load-balancer');
  // A service without the quota call (404) is not checked; anything else fails the pre-flight.
  const tolerant = (p: Promise<unknown> | undefined) =>
    p?.catch((e: unknown) => {
      if (!isNotFound(e)) throw e;
    });
  await Promise.all(
    [
    compute &&
      requestJson<{ limits: { absolute: Record<string, number> } }>(compute, { path: '/limits' }).then(({ body }) => {
        const a = body.limits.absolute;
        const pair = (limit: string, used: string): Headroom | undefined =>
          a[limit] === undefined ? undefined : { limit: a[limit]!, used: a[used] ?? 0 };
        Object.assign(
          out,
          strip({
            instances: pair('maxTotalInstances', 'totalInstancesUsed'),
            cores: pair('maxTotalCores', 'totalCoresUsed'),
            ram: pair('maxTotalRAMSize', 'totalRAMUsed'),
            server_groups: pair('maxServerGroups', 'totalServerGroupsUsed'),
            // Per group: the limit applies to each new group, which starts empty.
            server_group_members: pair('maxServerGroupMembers', 'unused'),
          }),
        );
      }),
    network &&
      requestJson<{ quota: Record<string, { limit: number; used: number; reserved?: number }> }>(network, {
        path: `/v2.0/quotas/${encodeURIComponent(project)}/details`,
      }).then(({ body }) => {
        for (const k of ['network', 'subnet', 'router', 'port', 'floatingip', 'security_group', 'security_group_rule'] as const) {
          const q = body.quota[k];
          if (q) out[k] = { limit: q.limit, used: q.used + (q.reserved ?? 0) };
        }
      }),
    volume &&
      requestJson<{ limits: { absolute: Record<string, number> } }>(volume, { path: '/limits' }).then(({ body }) => {
        const a = body.limits.absolute;
        if (a.maxTotalVolumes !== undefined) out.volumes = { limit: a.maxTotalVolumes, used: a.totalVolumesUsed ?? 0 };
        if (a.maxTotalVolumeGigabytes !== undefined) out.gigabytes = { limit: a.maxTotalVolumeGigabytes, used: a.totalGigabytesUsed ?? 0 };
      }),
    lb &&
      Promise.all([
        requestJson<{ quota: { load_balancer?: number | null } }>(lb, { path: `/v2/lbaas/quotas/${encodeURIComponent(project)}` }),
        requestJson<{ loadbalancers: unknown[] }>(lb, { path: '/v2/lbaas/loadbalancers', query: { project_id: project, fields: 'id' } }),
      ]).then(([q, l]) => {
        const limit = q.body.quota.load_balancer;
        if (typeof limit === 'number') out.load_balancer = { limit, used: l.body.loadbalancers.length };
      }),
    ].map((p) => tolerant(p || undefined)),
  );
  return out;
}

const strip = (o: Quotas): Quotas => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
