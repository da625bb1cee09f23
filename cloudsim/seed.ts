// The simulated cloud's starting contents, from one YAML file a user can change (seed.yaml beside
// this module, or CLOUDSIM_SEED_FILE): flavors, images, networks with their subnets, and default
// quotas. The file is checked against a schema when loaded; each service gets its part here.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { parse } from 'yaml';
import type { GlanceState, Visibility } from './glance/state.js';
import { parseCidr } from './neutron/ip.js';
import { defaultPools, dhcpRefusal } from './neutron/ipam.js';
import { QUOTA_RESOURCES, type NeutronState, type QuotaResource } from './neutron/state.js';
import { QUOTA_DEFAULTS as COMPUTE_QUOTAS } from './nova/quota.js';

const Int = (min = 0) => Type.Integer({ minimum: min });
const Strict = { additionalProperties: false } as const;

const FlavorSeed = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    name: Type.String({ minLength: 1 }),
    vcpus: Int(1),
    /** MiB. */
    ram: Int(1),
    /** GiB. */
    disk: Int(),
    ephemeral: Type.Optional(Int()),
    swap: Type.Optional(Int()),
    is_public: Type.Optional(Type.Boolean()),
    description: Type.Optional(Type.String()),
    extra_specs: Type.Optional(Type.Record(Type.String(), Type.String())),
  },
  Strict,
);

const ImageSeed = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    /** A project name; the image belongs to nobody when absent. */
    owner: Type.Optional(Type.String()),
    visibility: Type.Optional(Type.Union([Type.Literal('public'), Type.Literal('private'), Type.Literal('shared'), Type.Literal('community')])),
    size: Type.Optional(Int()),
    min_disk: Type.Optional(Int()),
    min_ram: Type.Optional(Int()),
    disk_format: Type.Optional(Type.String()),
    container_format: Type.Optional(Type.String()),
    protected: Type.Optional(Type.Boolean()),
    tags: Type.Optional(Type.Array(Type.String())),
    /** Custom properties (os_distro, os_version, hw_*...), as strings. */
    properties: Type.Optional(Type.Record(Type.String(), Type.String())),
  },
  Strict,
);

const SubnetSeed = Type.Object(
  {
    name: Type.Optional(Type.String()),
    cidr: Type.String(),
    gateway_ip: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    enable_dhcp: Type.Optional(Type.Boolean()),
    dns_nameservers: Type.Optional(Type.Array(Type.String())),
    /** Every host address but the gateway when absent. */
    allocation_pools: Type.Optional(Type.Array(Type.Object({ start: Type.String(), end: Type.String() }, Strict))),
  },
  Strict,
);

const NetworkSeed = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    /** A project name (the admin project's network when absent). */
    project: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    external: Type.Optional(Type.Boolean()),
    shared: Type.Optional(Type.Boolean()),
    is_default: Type.Optional(Type.Boolean()),
    mtu: Type.Optional(Int(68)),
    provider: Type.Optional(
      Type.Object({ network_type: Type.String(), physical_network: Type.Optional(Type.String()), segmentation_id: Type.Optional(Int()) }, Strict),
    ),
    subnets: Type.Optional(Type.Array(SubnetSeed)),
  },
  Strict,
);

const ZoneSeed = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255, pattern: '^[^:\\s]+$' }),
    /** How many compute hosts the zone has (named compute-NN, numbered across the zones). */
    hosts: Int(1),
  },
  Strict,
);

const Limits = Type.Record(Type.String(), Type.Integer({ minimum: -1 }));

const QuotaSeed = Type.Object(
  {
    compute: Type.Optional(Limits),
    network: Type.Optional(Limits),
    'load-balancer': Type.Optional(Limits),
    'block-storage': Type.Optional(Limits),
    dns: Type.Optional(Limits),
  },
  Strict,
);

export const CloudSeedSchema = Type.Object(
  {
    flavors: Type.Optional(Type.Array(FlavorSeed)),
    images: Type.Optional(Type.Array(ImageSeed)),
    networks: Type.Optional(Type.Array(NetworkSeed)),
    /** Nova's availability zones (the first is the default zone); Cinder offers the same zones for volumes. */
    availability_zones: Type.Optional(Type.Array(ZoneSeed, { minItems: 1 })),
    /** nova.conf [cinder] cross_az_attach (default true, as Nova's): false keeps every server's volumes in its zone. */
    cross_az_attach: Type.Optional(Type.Boolean()),
    /** Octavia's API policy: admin_or_owner (devstack's, the default) or default (Zed's: users need load-balancer_member or _observer). */
    octavia_policy: Type.Optional(Type.Union([Type.Literal('admin_or_owner'), Type.Literal('default')])),
    /** Octavia's [task_flow] jobboard_enabled (default true): false leaves a fully populated create's children PENDING_CREATE, as Zed does. */
    octavia_jobboard: Type.Optional(Type.Boolean()),
    quotas: Type.Optional(QuotaSeed),
  },
  Strict,
);

export type CloudSeed = Static<typeof CloudSeedSchema>;
export type FlavorSeed = Static<typeof FlavorSeed>;
export type ImageSeed = Static<typeof ImageSeed>;
export type NetworkSeed = Static<typeof NetworkSeed>;
export type ZoneSeed = Static<typeof ZoneSeed>;

/** Project ids by name (from the Keystone emulator), for owners. */
export type ProjectIds = Record<string, string>;

export const DEFAULT_SEED_FILE = fileURLToPath(new URL('./seed.yaml', import.meta.url));

/** Parses and checks a seed document; the error names every problem with its path. */
export function parseSeed(text: string, source = 'seed'): CloudSeed {
  let doc: unknown;
  try {
    doc = parse(text) ?? {};
  } catch (e) {
    throw new Error(`${source}: not valid YAML: ${(e as Error).message}`);
  }
  if (!Value.Check(CloudSeedSchema, doc)) {
    const problems = [...Value.Errors(CloudSeedSchema, doc)].slice(0, 10).map((e) => `${e.path || '/'}: ${e.message}`);
    throw new Error(`${source}: ${problems.join('; ')}`);
  }
  const seed = doc as CloudSeed;
  const unknown = (section: string, known: readonly string[], given: Record<string, number> | undefined) => {
    for (const k of Object.keys(given ?? {})) if (!known.includes(k)) throw new Error(`${source}: /quotas/${section}: unknown quota ${k}`);
  };
  const zones = (seed.availability_zones ?? []).map((z) => z.name);
  const twice = zones.find((z, i) => zones.indexOf(z) !== i);
  if (twice) throw new Error(`${source}: /availability_zones: zone ${twice} is listed twice`);
  unknown('compute', Object.keys(COMPUTE_QUOTAS), seed.quotas?.compute);
  unknown('network', QUOTA_RESOURCES, seed.quotas?.network);
  unknown('load-balancer', ['load_balancer', 'listener', 'pool', 'member', 'health_monitor'], seed.quotas?.['load-balancer']);
  unknown('block-storage', ['volumes', 'gigabytes'], seed.quotas?.['block-storage']);
  unknown('dns', ['zones', 'zone_recordsets', 'zone_records', 'recordset_records'], seed.quotas?.dns);
  return seed;
}

export function loadSeed(path: string = DEFAULT_SEED_FILE): CloudSeed {
  return parseSeed(readFileSync(path, 'utf8'), path);
}

let defaults: CloudSeed | undefined;
/** The seed file shipped with the simulator, read once. */
export function defaultSeed(): CloudSeed {
  defaults ??= loadSeed();
  return defaults;
}

/** Whatever can take a flavor (Nova's state). */
export interface FlavorSink {
  addFlavor(f: {
    id: string;
    name: string;
    vcpus: number;
    ram: number;
    disk: number;
    ephemeral?: number;
    swap?: number;
    isPublic?: boolean;
    description?: string | null;
    extraSpecs?: Record<string, string>;
  }): unknown;
}

export function seedFlavors(nova: FlavorSink, flavors: FlavorSeed[] = []): void {
  for (const f of flavors) {
    nova.addFlavor({
      id: f.id,
      name: f.name,
      vcpus: f.vcpus,
      ram: f.ram,
      disk: f.disk,
      ...(f.ephemeral !== undefined ? { ephemeral: f.ephemeral } : {}),
      ...(f.swap !== undefined ? { swap: f.swap } : {}),
      ...(f.is_public !== undefined ? { isPublic: f.is_public } : {}),
      ...(f.description !== undefined ? { description: f.description } : {}),
      ...(f.extra_specs ? { extraSpecs: { ...f.extra_specs } } : {}),
    });
  }
}

/** Images whose owner is not a known project belong to nobody; private ones are then left out. */
export function seedImages(glance: GlanceState, images: ImageSeed[] = [], projects: ProjectIds = {}): void {
  for (const i of images) {
    const owner = i.owner === undefined ? null : (projects[i.owner] ?? null);
    const visibility: Visibility = i.visibility ?? 'public';
    if (visibility !== 'public' && visibility !== 'community' && owner === null) continue;
    glance.addImage({
      name: i.name,
      owner,
      visibility,
      ...(i.size !== undefined ? { size: i.size } : {}),
      ...(i.min_disk !== undefined ? { min_disk: i.min_disk } : {}),
      ...(i.min_ram !== undefined ? { min_ram: i.min_ram } : {}),
      ...(i.disk_format !== undefined ? { disk_format: i.disk_format } : {}),
      ...(i.container_format !== undefined ? { container_format: i.container_format } : {}),
      ...(i.protected !== undefined ? { protected: i.protected } : {}),
      tags: [...(i.tags ?? [])],
      properties: { ...i.properties },
    });
  }
}

export function seedNetworks(neutron: NeutronState, networks: NetworkSeed[] = [], projects: ProjectIds = {}): void {
  for (const n of networks) {
    const network = neutron.addNetwork({
      name: n.name,
      projectId: projects[n.project ?? 'admin'] ?? '',
      ...(n.description !== undefined ? { description: n.description } : {}),
      ...(n.external !== undefined ? { external: n.external } : {}),
      ...(n.shared !== undefined ? { shared: n.shared } : {}),
      ...(n.is_default !== undefined ? { isDefault: n.is_default } : {}),
      ...(n.mtu !== undefined ? { mtu: n.mtu } : {}),
      ...(n.provider
        ? {
            providerNetworkType: n.provider.network_type,
            providerPhysicalNetwork: n.provider.physical_network ?? null,
            providerSegmentationId: n.provider.segmentation_id ?? null,
          }
        : {}),
    });
    for (const s of n.subnets ?? []) {
      const gatewayIp = s.gateway_ip === undefined ? firstHost(s.cidr) : s.gateway_ip;
      // What Neutron's API would refuse (a loopback floating-IP pool needs DHCP off).
      const refusal = (s.enable_dhcp ?? true) ? dhcpRefusal(parseCidr(s.cidr)!) : undefined;
      if (refusal) throw new Error(`seed: subnet ${s.cidr} of network ${n.name}: ${refusal}`);
      neutron.addSubnet({
        networkId: network.id,
        name: s.name ?? '',
        cidr: s.cidr,
        gatewayIp,
        enableDhcp: s.enable_dhcp ?? true,
        dnsNameservers: [...(s.dns_nameservers ?? [])],
        allocationPools: s.allocation_pools?.map((p) => ({ ...p })) ?? defaultPools(s.cidr, gatewayIp),
      });
    }
  }
}

/** The first host address of a CIDR (Neutron's default gateway). */
function firstHost(cidr: string): string {
  const [first] = defaultPools(cidr, null);
  if (!first) throw new Error(`seed: subnet ${cidr} has no host addresses`);
  return first.start;
}

/** Neutron's default quotas from the seed (the other services take theirs at creation). */
export function seedNetworkQuotas(neutron: NeutronState, quotas: Record<string, number> = {}): void {
  for (const [k, v] of Object.entries(quotas)) neutron.defaultQuotas[k as QuotaResource] = v;
}
