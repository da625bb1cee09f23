// POST /servers after the schema: flavor, image, key, zone, group, networks, ports, volumes and
// quotas checked as nova-api checks them before answering 202 (spec openstack-apis §2.2, §2.9),
// then the servers are recorded in BUILD and their build is armed (lifecycle.ts).
import { randomBytes, randomUUID } from 'node:crypto';
import { SimError } from '../common/errors.js';
import type { SimCaller } from '../common/keystone-auth.js';
import type { CreateBody } from './create-body.js';
import { NO_VALID_HOST, startBuild } from './lifecycle.js';
import { checkGroupMembersQuota, checkInstanceQuota, checkMetadataQuota } from './quota.js';
import { hostnameOf, type NetworkRequest, type Server } from './servers.js';
import type { Flavor, NovaState } from './state.js';

type Caller = SimCaller & { projectId: string };

const GiB = 1024 ** 3;
const ambiguous = () => new SimError(409, 'Multiple possible networks found, use a Network ID to be more specific.');

function flavorFor(state: NovaState, ref: string, caller: Caller): Flavor {
  const f = state.flavors.get(ref);
  const usable = f && !f.disabled && (f.isPublic || caller.isAdmin || f.projects.includes(caller.projectId));
  if (!usable) throw new SimError(400, 'Invalid flavorRef provided.');
  return f;
}

/** The image the server boots from ('' when booted from volume), checked against the flavor. */
function bootImage(state: NovaState, body: CreateBody, flavor: Flavor, caller: Caller): string {
  const bfv = body.blockDevices.some((b) => b.bootIndex === 0 && b.destinationType === 'volume');
  for (const b of body.blockDevices) {
    if (b.sourceType === 'image' && !state.images.image(b.uuid!, caller.projectId)) {
      throw new SimError(400, `Block Device Mapping is Invalid: failed to get image ${b.uuid}.`);
    }
  }
  const ref = body.imageRef || body.blockDevices.find((b) => b.bootIndex === 0 && b.sourceType === 'image')?.uuid || '';
  if (ref === '' && !bfv) throw new SimError(400, 'Missing imageRef attribute');
  if (ref !== '') {
    const image = state.images.image(ref, caller.projectId);
    if (!image) throw new SimError(400, 'Can not find requested image');
    if (image.status !== 'active') throw new SimError(400, `Image ${ref} is not active.`);
    if (!bfv) {
      if (flavor.disk === 0 && !caller.isAdmin) throw new SimError(403, 'Only volume-backed servers are allowed for flavors with zero disk.');
      const needed = Math.max(image.minDisk * GiB, image.size ?? 0);
      if (flavor.disk > 0 && needed > flavor.disk * GiB) {
        throw new SimError(400, `Flavor's disk is too small for requested image. Flavor disk is ${flavor.disk * GiB} bytes, image is ${needed} bytes.`);
      }
      if (image.minRam > flavor.ram) throw new SimError(400, "Flavor's memory is too small for requested image.");
    }
  }
  return bfv ? '' : ref;
}

function zoneFor(state: NovaState, asked: string | undefined, caller: Caller): string | null {
  if (asked === undefined) return null;
  const [zone, host] = asked.split(':');
  if (host !== undefined && !caller.isAdmin) throw new SimError(403, "Policy doesn't allow os_compute_api:servers:create:forced_host to be performed.");
  if (!state.behaviour.zones.some((z) => z.name === zone)) throw new SimError(400, 'The requested availability zone is not available');
  return zone!;
}

/** The interfaces asked for, checked against Neutron. */
function networksFor(state: NovaState, body: CreateBody, caller: Caller, count: number): NetworkRequest[] {
  const net = state.networking;
  const asked = body.networks;
  if (asked === 'none') return [];
  if (asked === undefined || asked === 'auto') {
    const candidates = net.availableNetworks(caller.projectId).filter((n) => asked === undefined || !n.external);
    if (candidates.length > 1) throw ambiguous();
    if (candidates.length === 1) return [{ networkId: candidates[0]!.id }];
    if (asked === 'auto') throw new SimError(400, `Unable to automatically allocate a network for project ${caller.projectId}`);
    return [];
  }
  return asked.map((n): NetworkRequest => {
    if (n.port !== undefined) {
      const p = net.port(n.port);
      if (!p || !(caller.isAdmin || p.projectId === caller.projectId)) throw new SimError(400, `Port id ${n.port} could not be found.`);
      if (p.deviceId !== '') throw new SimError(409, `Port ${n.port} is still in use.`);
      if (p.fixedIps.length === 0) throw new SimError(400, `Port ${n.port} requires a FixedIP in order to be used.`);
      if (count > 1) {
        throw new SimError(400, 'Unable to launch multiple instances with a single configured port ID. Please launch your instance one by one with different ports.');
      }
      return { portId: n.port };
    }
    const network = net.network(n.uuid!, caller.projectId);
    if (!network) throw new SimError(400, `Network ${n.uuid} could not be found.`);
    if (network.external && !network.shared && !caller.isAdmin) throw new SimError(403, `It is not allowed to create an interface on external network ${network.id}`);
    if (network.subnets.length === 0) throw new SimError(400, `Network ${network.id} requires a subnet in order to boot instances on.`);
    if (body.securityGroups !== undefined && !network.portSecurityEnabled) {
      throw new SimError(400, 'Network requires port_security_enabled and subnet associated in order to apply security groups.');
    }
    return { networkId: network.id, fixedIp: n.fixedIp };
  });
}

function securityGroupsFor(state: NovaState, body: CreateBody, caller: Caller, resolve: boolean): Server['securityGroups'] {
  const names = body.securityGroups ?? ['default'];
  if (!resolve) return [...new Set(names)].map((name) => ({ id: '', name }));
  return [...new Set(names)].map((name) => {
    const sg = state.networking.securityGroup(caller.projectId, name);
    if (!sg) throw new SimError(400, `Security group ${name} not found for project ${caller.projectId}.`);
    return sg;
  });
}

function checkVolumes(state: NovaState, body: CreateBody, caller: Caller, count: number): void {
  for (const b of body.blockDevices) {
    if (b.volumeType !== null && state.volumes?.hasType && !state.volumes.hasType(b.volumeType)) throw new SimError(400, `Volume type ${b.volumeType} could not be found.`);
    if (b.sourceType === 'snapshot' && state.volumes) throw new SimError(400, `Block Device Mapping is Invalid: failed to get snapshot ${b.uuid}.`);
    if (b.sourceType !== 'volume') continue;
    if (count > 1) throw new SimError(400, 'Cannot attach one or more volumes to multiple instances');
    if (!state.volumes) continue;
    const v = state.volumes.volume(b.uuid!, caller.projectId);
    if (!v) throw new SimError(400, `Volume ${b.uuid} could not be found.`);
    if (v.status !== 'available') throw new SimError(400, `Invalid volume: volume '${v.id}' status must be 'available'. Currently in '${v.status}'`);
    if (b.bootIndex === 0 && !v.bootable) throw new SimError(400, `Block Device ${v.id} is not bootable.`);
  }
}

/**
 * The zone a server with the user's volumes lands in when Nova does not allow cross-zone attachments
 * (compute API's _validate_vol_az_for_create): its volumes all in one zone, the server asking for that
 * one or for none (then placed in the volumes' zone). With cross_az_attach, the zone asked (or none).
 */
function zoneWithVolumes(state: NovaState, body: CreateBody, asked: string | null, caller: Caller): string | null {
  if (state.behaviour.crossAzAttach || !state.volumes) return asked;
  const zones = new Set<string>();
  for (const b of body.blockDevices) {
    if (b.sourceType !== 'volume' || b.uuid === null) continue;
    const v = state.volumes.volume(b.uuid, caller.projectId);
    if (v) zones.add(v.availabilityZone);
  }
  if (zones.size === 0) return asked;
  if (zones.size > 1) throw new SimError(400, `Volumes are in different availability zones: ${[...zones].join(',')}`);
  const [zone] = zones as unknown as [string];
  if (asked !== null && asked !== zone) {
    throw new SimError(400, `Server and volumes are not in the same availability zone. Server is in: ${asked}. Volumes are in: ${zone}`);
  }
  if (!state.behaviour.zones.some((z) => z.name === zone)) {
    throw new SimError(400, `Server and volumes are not in the same availability zone. Server is in: ${state.behaviour.zones[0]?.name ?? 'nova'}. Volumes are in: ${zone}`);
  }
  return zone;
}

/** How many servers fit the quotas, between min_count and max_count (403 when not even min_count). */
function countFor(state: NovaState, body: CreateBody, flavor: Flavor, caller: Caller): number {
  const limits = state.quotaOf(caller.projectId);
  const used = state.usage(caller.projectId);
  const fits = (n: number) => {
    try {
      checkInstanceQuota(limits, used, { instances: n, cores: n * flavor.vcpus, ram: n * flavor.ram });
      return true;
    } catch {
      return false;
    }
  };
  for (let n = body.maxCount; n >= body.minCount; n--) if (fits(n)) return n;
  const n = body.maxCount;
  checkInstanceQuota(limits, used, { instances: n, cores: n * flavor.vcpus, ram: n * flavor.ram });
  return n;
}

export interface Created {
  servers: Server[];
  adminPass: string;
  reservationId: string;
}

export function createServers(state: NovaState, body: CreateBody, caller: Caller): Created {
  const flavor = flavorFor(state, body.flavorRef, caller);
  const imageId = bootImage(state, body, flavor, caller);
  if (body.keyName !== undefined && !state.keypairs.has(`${caller.userId}/${body.keyName}`)) throw new SimError(400, 'Invalid key_name provided.');
  const zone = zoneFor(state, body.availabilityZone, caller);
  checkMetadataQuota(state.quotaOf(caller.projectId), Object.keys(body.metadata).length);
  const group = body.groupId === undefined ? undefined : state.serverGroups.get(body.groupId);
  if (body.groupId !== undefined && !(group && (caller.isAdmin || group.projectId === caller.projectId))) {
    throw new SimError(400, `Instance group ${body.groupId} could not be found.`);
  }
  const count = countFor(state, body, flavor, caller);
  const networks = networksFor(state, body, caller, count);
  const ownedPorts = networks.filter((n) => 'networkId' in n).length * count;
  const securityGroups = securityGroupsFor(state, body, caller, ownedPorts > 0);
  if (ownedPorts > state.networking.portRoom(caller.projectId)) throw new SimError(403, 'Maximum number of ports exceeded');
  checkVolumes(state, body, caller, count);
  const placed = zoneWithVolumes(state, body, zone, caller);
  if (group) checkGroupMembersQuota(state.quotaOf(caller.projectId), group.members.length + count - 1);

  const now = state.clock.now();
  const reservationId = `r-${randomBytes(4).toString('hex').slice(0, 8)}`;
  const adminPass = body.adminPass ?? randomBytes(9).toString('base64').replace(/[+/]/g, 'x');
  const servers: Server[] = [];
  for (let i = 0; i < count; i++) {
    const name = count > 1 ? `${body.name}-${i + 1}` : body.name;
    const s: Server = {
      id: randomUUID(),
      seq: state.nextSeq(),
      name,
      projectId: caller.projectId,
      userId: caller.userId,
      flavor: structuredClone(flavor),
      imageId,
      keyName: body.keyName ?? null,
      metadata: { ...body.metadata },
      tags: [...body.tags],
      description: body.description,
      availabilityZone: placed ?? '',
      requestedAz: placed,
      hostname: body.hostname ?? hostnameOf(name),
      userData: body.userData,
      configDrive: body.configDrive,
      diskConfig: body.diskConfig,
      accessIPv4: body.accessIPv4,
      accessIPv6: body.accessIPv6,
      securityGroups,
      networks: networks.map((n) => ({ ...n })),
      ports: [],
      blockDevices: body.blockDevices.map((b) => ({ ...b })),
      groupId: group?.id ?? null,
      reservationId,
      vmState: 'building',
      taskState: 'scheduling',
      powerState: 0,
      progress: 0,
      host: null,
      fault: null,
      locked: false,
      lockedReason: null,
      createdAt: now,
      updatedAt: now,
      launchedAt: null,
      terminatedAt: null,
    };
    // nova-api reserves the user's volumes before answering (Cinder shows them `reserved`).
    for (const b of s.blockDevices) if (b.sourceType === 'volume' && state.volumes) b.attachmentId = state.volumes.reserve(b.volumeId!, s.id);
    const twin = state.serversNamed(s.projectId, name).length > 0;
    state.boots.record(s.projectId, name, s.id, twin);
    state.servers.set(s.id, s);
    group?.members.push(s.id);
    const rule = state.takeBuildFailure(name);
    const doomed = rule ? rule.message ?? NO_VALID_HOST : state.clock.random.chance(state.behaviour.bootErrorFraction) ? NO_VALID_HOST : undefined;
    startBuild(state, s, doomed);
    servers.push(s);
  }
  return { servers, adminPass, reservationId };
}
