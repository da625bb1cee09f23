// The timed life of a server (spec openstack-apis §2.3, §2.4): BUILD walks scheduling →
// block_device_mapping → networking → spawning over one drawn 'nova.server.boot' delay, then
// ACTIVE, or ERROR with a fault; delete shows task_state deleting, releases ports and volumes and
// leaves a DELETED record that only changes-since lists.
import { SimError } from '../common/errors.js';
import { HYPERVISOR, hostsIn, zoneOfHost } from './hosts.js';
import { pickHost, type HostLoad } from './server-groups.js';
import type { Server } from './servers.js';
import { resumeShelving } from './shelve.js';
import type { NovaState } from './state.js';

export const NO_VALID_HOST = 'No valid host was found. There are not enough hosts available.';

/** Shares of the boot delay spent in each task state. */
const PHASES = { scheduling: 0.1, block_device_mapping: 0.15, networking: 0.2, spawning: 0.55 };
/**
 * The scheduler's answer comes within a second (cloud ms), however long the boot: a server that cannot be
 * placed is in ERROR (NoValidHost) that soon after its POST, as on a real cloud; the rest of the boot delay
 * goes to the other task states in their shares.
 */
const SCHEDULING_MAX_MS = 1000;

/** How long each task state takes of a boot of `total` scaled ms. */
function phaseMs(total: number): Record<Phase, number> {
  const scheduling = Math.min(total * PHASES.scheduling, SCHEDULING_MAX_MS);
  const rest = (total - scheduling) / (1 - PHASES.scheduling);
  return { scheduling, block_device_mapping: rest * PHASES.block_device_mapping, networking: rest * PHASES.networking, spawning: rest * PHASES.spawning };
}

/** Real-world ms for `scaled` ms of the clock (so that `arm` scales it back). */
const unscale = (state: NovaState, scaled: number) => (state.clock.timeScale > 0 ? scaled / state.clock.timeScale : 0);

/** A change of the server's state: it is filed again (deleted servers are tombstones). */
export function touch(state: NovaState, s: Server): void {
  s.updatedAt = state.clock.now();
  state.servers.refile(s.id);
}

function fail(state: NovaState, s: Server, message: string, details = ''): void {
  releasePorts(state, s);
  Object.assign(s, { vmState: 'error', taskState: null, powerState: 0 });
  s.fault = { code: 500, message, details, created: state.clock.now() };
  touch(state, s);
  state.notify(s);
}

type Phase = keyof typeof PHASES;

/** Arms the build of a server just accepted; `doomed` is the fault it will end with, if any. */
export function startBuild(state: NovaState, s: Server, doomed: string | undefined): void {
  if (state.behaviour.stuck) return;
  runBuild(state, s, 'scheduling', state.clock.delayMs('nova.server.boot'), doomed);
}

/** Re-arms what a restored server was doing: its build from the task state it had reached, or its delete. */
export function resume(state: NovaState, s: Server): void {
  if (state.behaviour.stuck) return;
  if (s.taskState === 'deleting') state.arm(s.id, 'nova.server.delete', () => finishDelete(state, s));
  else if (resumeShelving(state, s)) return;
  else if (s.vmState === 'building') runBuild(state, s, (s.taskState ?? 'scheduling') as Phase, state.clock.delayMs('nova.server.boot'), undefined);
}

/** The build from `from` on, each task state taking its share of `total` (scaled ms). */
function runBuild(state: NovaState, s: Server, from: Phase, total: number, doomed: string | undefined): void {
  const ms = phaseMs(total);
  const step = (phase: Phase, fn: () => void) => state.arm(s.id, unscale(state, ms[phase]), fn);
  const enter = (phase: Phase) => {
    s.taskState = phase;
    touch(state, s);
    step(phase, () => done[phase]());
  };
  const done: Record<Phase, () => void> = {
    scheduling: () => {
      const host = doomed === undefined ? schedule(state, s) : undefined;
      if (host === undefined) return fail(state, s, doomed ?? NO_VALID_HOST);
      s.host = host;
      s.availabilityZone = zoneOfHost(state.behaviour.zones, host) ?? s.requestedAz ?? '';
      enter('block_device_mapping');
    },
    block_device_mapping: () => attachVolumes(state, s, () => enter('networking')),
    networking: () => {
      try {
        plugPorts(state, s);
      } catch (e) {
        const reason = e instanceof SimError ? e.message : String(e);
        return fail(state, s, `Build of instance ${s.id} aborted: Failed to allocate the network(s), not rescheduling.`, reason);
      }
      enter('spawning');
    },
    spawning: () => {
      Object.assign(s, { vmState: 'active', taskState: null, powerState: 1, launchedAt: state.clock.now() });
      touch(state, s);
      state.notify(s);
    },
  };
  enter(from);
}

/**
 * A host of the server's zone (any zone when it asked for none), honouring its group's policy; undefined is a
 * NoValidHost. A flavor larger than a host's hypervisor (vCPUs, RAM or disk: Placement's max_unit) fits none.
 */
export function schedule(state: NovaState, s: Server): string | undefined {
  if (!fitsAHost(s)) return undefined;
  const group = s.groupId ? state.serverGroups.get(s.groupId) : undefined;
  const load: HostLoad = new Map();
  for (const id of group?.members ?? []) {
    const m = state.servers.get(id);
    if (m && m.id !== s.id && m.host && m.vmState !== 'error' && m.vmState !== 'deleted') load.set(m.host, (load.get(m.host) ?? 0) + 1);
  }
  return pickHost(hostsIn(state.behaviour.zones, s.requestedAz), group, load, state.clock.random);
}

/** Whether the flavor fits one simulated host at all (every host has the same hypervisor, hosts.ts). */
function fitsAHost(s: Server): boolean {
  // Booted from a volume, the root disk is not the host's.
  const disk = (s.imageId === '' ? 0 : s.flavor.disk) + s.flavor.ephemeral;
  return s.flavor.vcpus <= HYPERVISOR.vcpus && s.flavor.ram <= HYPERVISOR.memoryMb && disk <= HYPERVISOR.localGb;
}

const deviceName = (i: number) => `/dev/vd${String.fromCharCode(97 + i)}`;

/** Creates the volumes boot-from-volume asks for (in the server's zone only without cross_az_attach, as Nova), waits for them, and attaches every volume. */
function attachVolumes(state: NovaState, s: Server, done: () => void): void {
  const volumes = state.volumes;
  const wanted = s.blockDevices.filter((b) => b.destinationType === 'volume');
  if (!volumes) {
    wanted.forEach((b, i) => {
      b.volumeId ??= state.clock.random.uuid();
      b.device = deviceName(i);
    });
    return done();
  }
  try {
    for (const b of wanted) {
      if (b.volumeId !== null) continue;
      const size = b.volumeSize ?? s.flavor.disk;
      const v = volumes.create({ projectId: s.projectId, userId: s.userId, size, imageRef: b.sourceType === 'image' ? b.uuid ?? undefined : undefined, name: '', availabilityZone: state.behaviour.crossAzAttach ? undefined : s.availabilityZone, volumeType: b.volumeType ?? undefined });
      b.volumeId = v.id;
    }
  } catch (e) {
    return fail(state, s, `Build of instance ${s.id} aborted: ${e instanceof SimError ? e.message : String(e)}`);
  }
  let attempts = 0;
  const poll = () => {
    const statuses = wanted.map((b) => (b.attachmentId ? 'reserved' : volumes.volume(b.volumeId!, s.projectId)?.status ?? 'missing'));
    const bad = wanted.find((_, i) => statuses[i] === 'error' || statuses[i] === 'missing');
    if (bad) {
      return fail(state, s, `Build of instance ${s.id} aborted: Volume ${bad.volumeId} did not finish being created even after we waited ${attempts} seconds or ${attempts + 1} attempts. And its status is ${statuses[wanted.indexOf(bad)]}.`);
    }
    if (statuses.some((st) => st !== 'available' && st !== 'reserved')) {
      attempts++;
      return state.arm(s.id, 1000, poll);
    }
    try {
      wanted.forEach((b, i) => {
        b.attachmentId ??= volumes.reserve(b.volumeId!, s.id);
        b.device = deviceName(i);
        volumes.attach(b.attachmentId, b.device);
      });
    } catch (e) {
      return fail(state, s, `Build of instance ${s.id} aborted: ${e instanceof SimError ? e.message : String(e)}`);
    }
    done();
  };
  poll();
}

/** Creates the ports Nova owns and binds the user's (device_owner compute:<az>, bound to the host). */
function plugPorts(state: NovaState, s: Server): void {
  if (s.ports.length > 0) return;
  const owner = `compute:${s.availabilityZone}`;
  for (const req of s.networks) {
    if ('portId' in req) {
      const p = state.networking.port(req.portId);
      if (!p) throw new SimError(400, `Port id ${req.portId} could not be found.`);
      if (p.deviceId !== '' && p.deviceId !== s.id) throw new SimError(409, `Port ${req.portId} is still in use.`);
      state.networking.bindPort(req.portId, s.id, owner, s.host ?? '');
      s.ports.push({ portId: req.portId, networkId: p.networkId, owned: false });
    } else {
      const ids = s.securityGroups.map((g) => g.id);
      const p = state.networking.createPort({ projectId: s.projectId, networkId: req.networkId, fixedIp: req.fixedIp, securityGroupIds: ids, deviceId: s.id, deviceOwner: owner, hostId: s.host ?? '' });
      s.ports.push({ portId: p.id, networkId: req.networkId, owned: true });
    }
  }
}

/** Deletes the ports Nova created and unbinds the user's. */
function releasePorts(state: NovaState, s: Server): void {
  for (const p of s.ports) {
    if (p.owned) state.networking.deletePort(p.portId);
    else state.networking.unbindPort(p.portId);
  }
  s.ports = [];
}

/** DELETE: task_state deleting at once (the status stays), gone after 'nova.server.delete'. */
export function startDelete(state: NovaState, s: Server): void {
  if (s.taskState === 'deleting') return;
  state.disarm(s.id);
  s.taskState = 'deleting';
  touch(state, s);
  state.notify(s);
  if (state.behaviour.stuck) return;
  state.arm(s.id, 'nova.server.delete', () => finishDelete(state, s));
}

function finishDelete(state: NovaState, s: Server): void {
  releasePorts(state, s);
  for (const b of s.blockDevices) {
    if (!state.volumes || b.volumeId === null) continue;
    if (b.attachmentId) state.volumes.detached(b.attachmentId);
    if (b.deleteOnTermination) state.volumes.delete(b.volumeId);
  }
  const group = s.groupId ? state.serverGroups.get(s.groupId) : undefined;
  if (group) group.members = group.members.filter((id) => id !== s.id);
  Object.assign(s, { vmState: 'deleted', taskState: null, powerState: 0, terminatedAt: state.clock.now() });
  touch(state, s);
  state.notify(s);
  state.purgeTombstones();
}
