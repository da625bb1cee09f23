// A server as GET /servers/{id} and /servers/detail show it (spec openstack-apis §2.3), by
// microversion and by caller (OS-EXT-SRV-ATTR:* and host_status are for admins).
import { createHash } from 'node:crypto';
import type { SimCaller } from '../common/keystone-auth.js';
import { hypervisorHostname } from './hosts.js';
import { atLeast, type Version } from './microversion.js';
import { statusOf, type Server } from './servers.js';
import type { NovaState } from './state.js';

/** Nova's isotime: seconds, 'Z'. */
export const isoZ = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
/** A naive datetime with microseconds, as launched_at and keypair created_at print. */
export const isoMicro = (ms: number): string => new Date(ms).toISOString().replace(/Z$/, '000');

export const serverLinks = (base: string, id: string) => [
  { rel: 'self', href: `${base}/v2.1/servers/${id}` },
  { rel: 'bookmark', href: `${base}/servers/${id}` },
];

/** Statuses that show `progress`. */
const PROGRESS_STATUSES = ['ACTIVE', 'BUILD', 'REBUILD', 'RESIZE', 'VERIFY_RESIZE', 'MIGRATING'];

/** sha224(project + host), as Nova hides host names from users. */
const hostIdOf = (s: Server) => (s.host ? createHash('sha224').update(s.projectId + s.host).digest('hex') : '');

/** `addresses`: the ports' fixed and floating IPs, by network name. */
export function addressesOf(state: NovaState, s: Server): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const sp of s.ports) {
    const p = state.networking.port(sp.portId);
    if (!p) continue;
    const entry = (addr: string, type: 'fixed' | 'floating') => ({
      addr,
      version: addr.includes(':') ? 6 : 4,
      'OS-EXT-IPS:type': type,
      'OS-EXT-IPS-MAC:mac_addr': p.macAddress,
    });
    (out[p.networkName] ??= []).push(...p.fixedIps.map((a) => entry(a, 'fixed')), ...p.floatingIps.map((a) => entry(a, 'floating')));
  }
  return out;
}

function securityGroupsOf(state: NovaState, s: Server): { name: string }[] | undefined {
  if (s.ports.length === 0) return s.vmState === 'building' ? s.securityGroups.map((g) => ({ name: g.name })) : undefined;
  const names = new Set<string>();
  for (const sp of s.ports) for (const n of state.networking.port(sp.portId)?.securityGroupNames ?? []) names.add(n);
  return [...names].map((name) => ({ name }));
}

/** `inList`: the server as /servers/detail shows it (without server_groups, which 2.71 added to a single server's answers only). */
export function renderServer(state: NovaState, s: Server, v: Version, caller: SimCaller, base: string, inList = false): Record<string, unknown> {
  const status = statusOf(s);
  const flavor = atLeast(v, 47)
    ? {
        vcpus: s.flavor.vcpus,
        ram: s.flavor.ram,
        disk: s.flavor.disk,
        ephemeral: s.flavor.ephemeral,
        swap: s.flavor.swap,
        original_name: s.flavor.name,
        extra_specs: { ...s.flavor.extraSpecs },
      }
    : { id: s.flavor.id, links: [{ rel: 'bookmark', href: `${base}/flavors/${s.flavor.id}` }] };
  const body: Record<string, unknown> = {
    id: s.id,
    name: s.name,
    status,
    tenant_id: s.projectId,
    user_id: s.userId,
    metadata: { ...s.metadata },
    hostId: hostIdOf(s),
    image: s.imageId ? { id: s.imageId, links: [{ rel: 'bookmark', href: `${base}/images/${s.imageId}` }] } : '',
    flavor,
    created: isoZ(s.createdAt),
    updated: isoZ(s.updatedAt),
    addresses: addressesOf(state, s),
    accessIPv4: s.accessIPv4,
    accessIPv6: s.accessIPv6,
    links: serverLinks(base, s.id),
    'OS-DCF:diskConfig': s.diskConfig,
    'OS-EXT-AZ:availability_zone': s.availabilityZone,
    config_drive: s.configDrive ? 'True' : '',
    key_name: s.keyName,
    'OS-SRV-USG:launched_at': s.launchedAt === null ? null : isoMicro(s.launchedAt),
    'OS-SRV-USG:terminated_at': s.terminatedAt === null ? null : isoMicro(s.terminatedAt),
    'OS-EXT-STS:task_state': s.taskState,
    'OS-EXT-STS:vm_state': s.vmState,
    'OS-EXT-STS:power_state': s.powerState,
    'os-extended-volumes:volumes_attached': s.blockDevices
      .filter((b) => b.volumeId !== null)
      .map((b) => (atLeast(v, 3) ? { id: b.volumeId, delete_on_termination: b.deleteOnTermination } : { id: b.volumeId })),
  };
  if (PROGRESS_STATUSES.includes(status)) body.progress = s.progress;
  const groups = securityGroupsOf(state, s);
  if (groups) body.security_groups = groups;
  if (s.fault && (status === 'ERROR' || status === 'DELETED')) {
    const fault: Record<string, unknown> = { code: s.fault.code, created: isoZ(s.fault.created), message: s.fault.message };
    if (s.fault.details && (caller.isAdmin || s.fault.code !== 500)) fault.details = s.fault.details;
    body.fault = fault;
  }
  if (caller.isAdmin) {
    body['OS-EXT-SRV-ATTR:host'] = s.host;
    body['OS-EXT-SRV-ATTR:hypervisor_hostname'] = s.host ? hypervisorHostname(s.host) : null;
    body['OS-EXT-SRV-ATTR:instance_name'] = `instance-${s.seq.toString(16).padStart(8, '0')}`;
    if (atLeast(v, 3)) {
      Object.assign(body, {
        'OS-EXT-SRV-ATTR:reservation_id': s.reservationId,
        'OS-EXT-SRV-ATTR:launch_index': 0,
        'OS-EXT-SRV-ATTR:kernel_id': '',
        'OS-EXT-SRV-ATTR:ramdisk_id': '',
        'OS-EXT-SRV-ATTR:root_device_name': s.host ? '/dev/vda' : null,
        'OS-EXT-SRV-ATTR:user_data': s.userData,
      });
    }
  }
  if ((caller.isAdmin && atLeast(v, 3)) || atLeast(v, 90)) body['OS-EXT-SRV-ATTR:hostname'] = s.hostname;
  if (atLeast(v, 9)) body.locked = s.locked;
  if (atLeast(v, 16) && caller.isAdmin) body.host_status = s.host ? 'UP' : '';
  if (atLeast(v, 19)) body.description = s.description;
  if (atLeast(v, 26)) body.tags = [...s.tags];
  if (atLeast(v, 63)) body.trusted_image_certificates = null;
  if (atLeast(v, 71) && !inList) body.server_groups = s.groupId ? [s.groupId] : [];
  if (atLeast(v, 73)) body.locked_reason = s.lockedReason;
  if (atLeast(v, 96)) body.pinned_availability_zone = s.requestedAz;
  return body;
}

export const renderSummary = (s: Server, base: string) => ({ id: s.id, name: s.name, links: serverLinks(base, s.id) });
