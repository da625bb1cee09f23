// The shelve and unshelve actions' checks, as nova/api/openstack/compute/shelve.py and compute/api.py make them:
// policy os_compute_api:os-shelve:shelve and :unshelve (PROJECT_MEMBER_OR_ADMIN: a reader gets 403), the lock
// (409), the vm_state (shelve: active, stopped, paused, suspended; unshelve: shelved, shelved_offloaded) with no
// task and launched at least once (409 naming the attribute), and from 2.77 the body
// {"unshelve": null | {"availability_zone": <name>}} (400 otherwise; a zone only for SHELVED_OFFLOADED, 409;
// an unknown zone, 400; 2.91's `host` is not simulated). The answer is 202 with no body.
import type { SimCaller } from '../common/keystone-auth.js';
import { SimError } from '../common/errors.js';
import { atLeast, type Version } from './microversion.js';
import type { Server, VmState } from './servers.js';
import { startShelve, startUnshelve } from './shelve.js';
import type { NovaState } from './state.js';

/** PROJECT_MEMBER_OR_ADMIN: the member role (or manager, which implies it) on the server's project, or admin. */
function authorize(caller: SimCaller, rule: string): void {
  const member = caller.roles.some((r) => ['member', 'manager', 'admin'].includes(r.toLowerCase()));
  if (!caller.isAdmin && !member) throw new SimError(403, `Policy doesn't allow os_compute_api:os-shelve:${rule} to be performed.`);
}

/** check_instance_lock and check_instance_state, the message as raise_http_conflict_for_instance_invalid_state words it. */
function checkShelveState(s: Server, caller: SimCaller, action: string, states: VmState[]): void {
  if (s.locked && !caller.isAdmin) throw new SimError(409, `Instance ${s.id} is locked`);
  const bad = (attr: string, state: unknown) => new SimError(409, `Cannot '${action}' instance ${s.id} while it is in ${attr} ${state}`);
  if (!states.includes(s.vmState)) throw bad('vm_state', s.vmState);
  if (s.taskState !== null) throw bad('task_state', s.taskState);
  if (s.launchedAt === null) throw bad('launched_at', 'None');
}

export function shelveAction(state: NovaState, s: Server, caller: SimCaller): void {
  authorize(caller, 'shelve');
  checkShelveState(s, caller, 'shelve', ['active', 'stopped']);
  startShelve(state, s);
}

/** The zone 2.77 asks for (undefined: none asked); 400 for a body the schema refuses. */
function askedZone(body: Record<string, unknown>, v: Version): string | null | undefined {
  if (!atLeast(v, 77)) return undefined;
  const args = body.unshelve;
  if (args === null) return undefined;
  const invalid = (detail: string) => new SimError(400, `Invalid input for field/attribute unshelve. Value: ${JSON.stringify(args)}. ${detail}`);
  if (typeof args !== 'object' || Array.isArray(args)) throw invalid(`${JSON.stringify(args)} is not of type 'object', 'null'`);
  const a = args as Record<string, unknown>;
  // 2.91's `host` (admin only) is not simulated: refused as before 2.91.
  const extra = Object.keys(a).filter((k) => k !== 'availability_zone');
  if (extra.length > 0) throw invalid(`Additional properties are not allowed ('${extra.join("', '")}' ${extra.length > 1 ? 'were' : 'was'} unexpected)`);
  if (!('availability_zone' in a)) {
    if (atLeast(v, 91)) return undefined;
    throw invalid("'availability_zone' is a required property");
  }
  const zone = a.availability_zone;
  if (zone === null && atLeast(v, 91)) return null;
  if (typeof zone !== 'string' || zone.trim() === '' || zone.length > 255) throw invalid(`${JSON.stringify(zone)} is not a valid name`);
  return zone;
}

export function unshelveAction(state: NovaState, s: Server, caller: SimCaller, body: Record<string, unknown>, v: Version): void {
  authorize(caller, 'unshelve');
  const zone = askedZone(body, v);
  checkShelveState(s, caller, 'unshelve', ['shelved', 'shelved_offloaded']);
  if (zone !== undefined && s.vmState !== 'shelved_offloaded') {
    throw new SimError(409, `Specifying an availability zone or a host when unshelving server "${s.id}" with status "${s.vmState}" is not supported. The server status must be SHELVED_OFFLOADED.`);
  }
  if (typeof zone === 'string' && !state.behaviour.zones.some((z) => z.name === zone)) throw new SimError(400, 'The requested availability zone is not available');
  startUnshelve(state, s, zone);
}
