// Shelve and unshelve as Nova does them with shelved_offload_time 0 (nova/compute/manager.py): shelve powers
// the guest off and snapshots it (task_state shelving, shelving_image_pending_upload, shelving_image_uploading;
// a volume-backed server skips the snapshot), is SHELVED with task_state shelving_offloading, then
// SHELVED_OFFLOADED: the guest is destroyed, the host and node are cleared (the hypervisor's usage goes
// down) and the ports' host bindings deleted, while the ports (device_id), the volumes and the quota usage stay.
// Unshelve (task_state unshelving, then spawning) goes through the scheduler again: a host of the server's zone
// (or of the zone 2.77 names), the same ports bound to it, the same volumes, ACTIVE. No host: back to
// SHELVED_OFFLOADED with no task, as a failed unshelve leaves it. The `<name>-shelved` snapshot image Nova
// keeps in Glance while shelved is not made here.
import { zoneOfHost } from './hosts.js';
import { schedule, touch } from './lifecycle.js';
import type { Server } from './servers.js';
import type { NovaState } from './state.js';

const SHELVE_PHASES = ['shelving', 'shelving_image_pending_upload', 'shelving_image_uploading', 'shelving_offloading'] as const;
const UNSHELVE_PHASES = ['unshelving', 'spawning'] as const;

/** Real-world ms of one of `n` equal shares of a drawn delay (so that `arm` scales it back). */
function shareMs(state: NovaState, delay: string, n: number): number {
  const scaled = state.clock.delayMs(delay) / n;
  return state.clock.timeScale > 0 ? scaled / state.clock.timeScale : 0;
}

/** POST action shelve: accepted (the caller checked the state); the server is SHELVED_OFFLOADED when done. */
export function startShelve(state: NovaState, s: Server): void {
  s.taskState = 'shelving';
  touch(state, s);
  state.notify(s);
  if (state.behaviour.stuck) return;
  runShelve(state, s, s.imageId === '' ? 3 : 0, shareMs(state, 'nova.server.shelve', 4));
}

function runShelve(state: NovaState, s: Server, from: number, stepMs: number): void {
  const next = (i: number) =>
    state.arm(s.id, stepMs, () => {
      if (i + 1 < SHELVE_PHASES.length) {
        const phase = SHELVE_PHASES[i + 1]!;
        // The snapshot is uploaded: the guest is off and SHELVED until it is offloaded.
        if (phase === 'shelving_offloading') Object.assign(s, { vmState: 'shelved', powerState: 4 });
        s.taskState = phase;
        touch(state, s);
        if (phase === 'shelving_offloading') state.notify(s);
        return next(i + 1);
      }
      offload(state, s);
    });
  s.taskState = SHELVE_PHASES[from]!;
  if (from === SHELVE_PHASES.length - 1) Object.assign(s, { vmState: 'shelved', powerState: 4 });
  touch(state, s);
  next(from);
}

/** The guest leaves its host: the host binding of each port goes, the ports stay the server's. */
function offload(state: NovaState, s: Server): void {
  for (const p of s.ports) {
    const port = state.networking.port(p.portId);
    if (port) state.networking.bindPort(p.portId, s.id, port.deviceOwner, '');
  }
  Object.assign(s, { vmState: 'shelved_offloaded', taskState: null, powerState: 4, host: null });
  touch(state, s);
  state.notify(s);
}

/** POST action unshelve: accepted; `zone` (2.77) replaces the zone it asked for, null unpins it (2.91). */
export function startUnshelve(state: NovaState, s: Server, zone: string | null | undefined): void {
  if (zone !== undefined) s.requestedAz = zone;
  s.taskState = 'unshelving';
  touch(state, s);
  state.notify(s);
  if (state.behaviour.stuck) return;
  runUnshelve(state, s, 0, shareMs(state, 'nova.server.unshelve', 2));
}

function runUnshelve(state: NovaState, s: Server, from: number, stepMs: number): void {
  s.taskState = UNSHELVE_PHASES[from]!;
  touch(state, s);
  state.arm(s.id, stepMs, () => {
    if (s.taskState === 'unshelving') {
      // A server still SHELVED (not offloaded) keeps its host; an offloaded one is scheduled again.
      const host = s.host ?? schedule(state, s);
      if (host === undefined) {
        Object.assign(s, { taskState: null });
        touch(state, s);
        state.notify(s);
        return;
      }
      s.host = host;
      s.availabilityZone = zoneOfHost(state.behaviour.zones, host) ?? s.availabilityZone;
      for (const p of s.ports) state.networking.bindPort(p.portId, s.id, `compute:${s.availabilityZone}`, host);
      return runUnshelve(state, s, 1, stepMs);
    }
    Object.assign(s, { vmState: 'active', taskState: null, powerState: 1 });
    touch(state, s);
    state.notify(s);
  });
}

/** After a restore: a shelve or unshelve under way carries on from its task state; false when none was. */
export function resumeShelving(state: NovaState, s: Server): boolean {
  const shelving = SHELVE_PHASES.indexOf(s.taskState as (typeof SHELVE_PHASES)[number]);
  if (shelving >= 0) {
    runShelve(state, s, shelving, shareMs(state, 'nova.server.shelve', 4));
    return true;
  }
  const unshelving = UNSHELVE_PHASES.indexOf(s.taskState as (typeof UNSHELVE_PHASES)[number]);
  if (unshelving >= 0) {
    runUnshelve(state, s, unshelving, shareMs(state, 'nova.server.unshelve', 2));
    return true;
  }
  return false;
}
