// A Nova server as the simulator keeps it, and how its API `status` derives from
// (vm_state, task_state) (spec openstack-apis §2.3).
import type { Flavor } from './state.js';

export type VmState = 'building' | 'active' | 'stopped' | 'error' | 'deleted' | 'shelved' | 'shelved_offloaded';

/** A network interface: a Neutron port, created by Nova or the user's own. */
export interface ServerPort {
  portId: string;
  networkId: string;
  /** True when Nova created the port (deleted with the server); false for a user's port (unbound). */
  owned: boolean;
}

/** What the create request asked for, resolved when networking runs. */
export type NetworkRequest = { networkId: string; fixedIp?: string | undefined } | { portId: string };

export interface BlockDevice {
  bootIndex: number | null;
  sourceType: 'image' | 'volume' | 'snapshot' | 'blank';
  destinationType: 'local' | 'volume';
  /** The image, volume or snapshot id (for blank: none). */
  uuid: string | null;
  volumeSize: number | null;
  deleteOnTermination: boolean;
  volumeType: string | null;
  /** The volume once known (created or given). */
  volumeId: string | null;
  attachmentId: string | null;
  device: string | null;
  tag: string | null;
}

export interface Fault {
  code: number;
  message: string;
  details: string;
  created: number;
}

export interface Server {
  id: string;
  /** Sequential, for instance-%08x. */
  seq: number;
  name: string;
  projectId: string;
  userId: string;
  /** A copy of the flavor at boot (Nova embeds it in the instance). */
  flavor: Flavor;
  /** '' when booted from volume. */
  imageId: string;
  keyName: string | null;
  metadata: Record<string, string>;
  tags: string[];
  description: string | null;
  /** The zone asked for ('' until scheduled when none was). */
  availabilityZone: string;
  requestedAz: string | null;
  hostname: string;
  userData: string | null;
  configDrive: boolean;
  diskConfig: 'MANUAL' | 'AUTO';
  accessIPv4: string;
  accessIPv6: string;
  securityGroups: { id: string; name: string }[];
  networks: NetworkRequest[];
  ports: ServerPort[];
  blockDevices: BlockDevice[];
  groupId: string | null;
  reservationId: string;
  vmState: VmState;
  taskState: string | null;
  /** 0 NOSTATE, 1 RUNNING, 4 SHUTDOWN. */
  powerState: number;
  progress: number;
  host: string | null;
  fault: Fault | null;
  locked: boolean;
  lockedReason: string | null;
  createdAt: number;
  updatedAt: number;
  launchedAt: number | null;
  terminatedAt: number | null;
}

const STATUS: Record<VmState, string> = {
  building: 'BUILD',
  active: 'ACTIVE',
  stopped: 'SHUTOFF',
  error: 'ERROR',
  deleted: 'DELETED',
  shelved: 'SHELVED',
  shelved_offloaded: 'SHELVED_OFFLOADED',
};

/** Every status the list filter accepts (an unknown one is a 400 from 2.38). */
export const KNOWN_STATUSES = [
  'ACTIVE', 'BUILD', 'DELETED', 'ERROR', 'HARD_REBOOT', 'MIGRATING', 'PASSWORD', 'PAUSED', 'REBOOT', 'REBUILD',
  'RESCUE', 'RESIZE', 'REVERT_RESIZE', 'SHELVED', 'SHELVED_OFFLOADED', 'SHUTOFF', 'SOFT_DELETED', 'SUSPENDED',
  'UNKNOWN', 'VERIFY_RESIZE',
];

export const statusOf = (s: Server): string => STATUS[s.vmState];

/** Nova accepts tag and metadata changes only in these vm_states. */
export const MUTABLE_STATES: VmState[] = ['active', 'stopped'];

/** The hostname Nova derives from a display name (lower case, [a-z0-9-], at most 63 characters). */
export function hostnameOf(name: string): string {
  const h = name
    .toLowerCase()
    .replace(/[ _]/g, '-')
    .replace(/[^a-z0-9.-]/g, '')
    .replace(/^[.-]+|[.-]+$/g, '')
    .slice(0, 63);
  return h || 'server';
}
