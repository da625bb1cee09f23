// The POST /servers body checked as Nova's JSON schema of the request's microversion checks it
// (spec openstack-apis §2.2): which keys exist at which version, their formats, and the same
// error texts. Semantic checks (flavor, image, networks, quotas) are in server-create.ts.
import { SimError } from '../common/errors.js';
import { atLeast, type Version } from './microversion.js';
import type { BlockDevice } from './servers.js';
import {
  checkBoolean, checkKeys, checkMetadata, checkName, checkString, checkTag, checkType, checkUuid, invalidInput, isUuid, pyRepr, type Obj,
} from './validate.js';

export type NetworksRequest = 'auto' | 'none' | { uuid?: string; port?: string; fixedIp?: string }[] | undefined;

export interface CreateBody {
  name: string;
  flavorRef: string;
  imageRef: string;
  keyName: string | undefined;
  networks: NetworksRequest;
  securityGroups: string[] | undefined;
  userData: string | null;
  metadata: Record<string, string>;
  availabilityZone: string | undefined;
  blockDevices: BlockDevice[];
  configDrive: boolean;
  diskConfig: 'MANUAL' | 'AUTO';
  accessIPv4: string;
  accessIPv6: string;
  adminPass: string | undefined;
  description: string | null;
  tags: string[];
  hostname: string | undefined;
  minCount: number;
  maxCount: number;
  returnReservationId: boolean;
  groupId: string | undefined;
}

function serverKeys(v: Version): string[] {
  const keys = [
    'name', 'imageRef', 'flavorRef', 'adminPass', 'metadata', 'networks', 'OS-DCF:diskConfig', 'accessIPv4', 'accessIPv6',
    'security_groups', 'user_data', 'availability_zone', 'key_name', 'block_device_mapping', 'block_device_mapping_v2',
    'config_drive', 'min_count', 'max_count', 'return_reservation_id',
  ];
  if (!atLeast(v, 57)) keys.push('personality');
  if (atLeast(v, 19)) keys.push('description');
  if (atLeast(v, 52)) keys.push('tags');
  if (atLeast(v, 63)) keys.push('trusted_image_certificates');
  if (atLeast(v, 74)) keys.push('host', 'hypervisor_hostname');
  if (atLeast(v, 90)) keys.push('hostname');
  return keys;
}

/** user_data: at most 65535 characters of base64 text (python's lenient decodebytes). */
function userData(value: unknown): string {
  const s = checkString('user_data', value, 0, 65535);
  const stripped = s.replace(/[^A-Za-z0-9+/=]/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(stripped) || stripped.length % 4 !== 0) throw invalidInput('user_data', s, `${pyRepr(s)} is not a 'base64'`);
  return s;
}

const notValidUnderAny = (path: string, value: unknown) => invalidInput(path, value, `${pyRepr(value)} is not valid under any of the given schemas`);

function networks(value: unknown, v: Version): NetworksRequest {
  if (value === 'auto' || value === 'none') {
    if (atLeast(v, 37)) return value;
  }
  if (!Array.isArray(value)) {
    if (atLeast(v, 37)) throw notValidUnderAny('networks', value);
    checkType('networks', value, 'array');
  }
  const tagged = (atLeast(v, 32) && !atLeast(v, 37)) || atLeast(v, 42);
  return (value as unknown[]).map((raw) => {
    checkType('networks', raw, 'object');
    const n = raw as Obj;
    checkKeys('networks', n, ['uuid', 'port', 'fixed_ip', ...(tagged ? ['tag'] : [])]);
    const out: { uuid?: string; port?: string; fixedIp?: string } = {};
    if (n.uuid !== undefined) {
      if (atLeast(v, 37)) checkUuid('uuid', n.uuid);
      else {
        checkType('uuid', n.uuid, 'string');
        if (!isUuid(n.uuid)) throw new SimError(400, `Bad networks format: network uuid is not in proper format (${String(n.uuid)})`);
      }
      out.uuid = n.uuid as string;
    }
    if (n.port !== undefined && n.port !== null) {
      if (!isUuid(n.port)) throw notValidUnderAny('port', n.port);
      out.port = n.port;
    }
    if (n.fixed_ip !== undefined) {
      if (typeof n.fixed_ip !== 'string' || !/^(\d{1,3}\.){3}\d{1,3}$|:/.test(n.fixed_ip)) throw notValidUnderAny('fixed_ip', n.fixed_ip);
      out.fixedIp = n.fixed_ip;
    }
    if (n.tag !== undefined) checkTag('tag', n.tag);
    if (out.port === undefined && out.uuid === undefined) throw new SimError(400, "Bad network format: missing 'uuid'");
    return out;
  });
}

const BDM_KEYS = [
  'boot_index', 'source_type', 'destination_type', 'uuid', 'image_id', 'volume_id', 'snapshot_id', 'volume_size', 'delete_on_termination',
  'device_name', 'device_type', 'disk_bus', 'guest_format', 'no_device', 'connection_info', 'virtual_name', 'tag', 'volume_type', 'encrypted',
  'encryption_secret_uuid', 'encryption_format', 'encryption_options',
];

function blockDevice(raw: unknown, v: Version): BlockDevice {
  checkType('block_device_mapping_v2', raw, 'object');
  const b = raw as Obj;
  checkKeys('block_device_mapping_v2', b, BDM_KEYS.filter((k) => (k !== 'volume_type' || atLeast(v, 67)) && (k !== 'tag' || atLeast(v, 32))));
  const source = b.source_type ?? 'image';
  const sources = ['volume', 'image', 'snapshot', 'blank'];
  if (!sources.includes(source as string)) throw invalidInput('source_type', source, `${pyRepr(source)} is not one of ${pyRepr(sources)}`);
  const dest = b.destination_type ?? (source === 'volume' || source === 'snapshot' ? 'volume' : 'local');
  if (dest !== 'local' && dest !== 'volume') throw invalidInput('destination_type', dest, `${pyRepr(dest)} is not one of ['local', 'volume']`);
  let bootIndex: number | null = null;
  if (b.boot_index !== undefined && b.boot_index !== null) {
    if (!/^-?\d+$/.test(String(b.boot_index))) throw invalidInput('boot_index', b.boot_index, `${pyRepr(b.boot_index)} does not match '^-?[0-9]+$'`);
    bootIndex = Number(b.boot_index);
  }
  let size: number | null = null;
  if (b.volume_size !== undefined && b.volume_size !== null) {
    if (!/^\d+$/.test(String(b.volume_size)) || Number(b.volume_size) < 1) throw invalidInput('volume_size', b.volume_size, `${pyRepr(b.volume_size)} is less than the minimum of 1`);
    size = Number(b.volume_size);
  }
  const uuid = (b.uuid ?? b.volume_id ?? b.image_id ?? b.snapshot_id ?? null) as string | null;
  if (uuid !== null) checkString('uuid', uuid, 1, 255);
  if (source !== 'blank' && uuid === null) throw new SimError(400, 'Block Device Mapping is Invalid: Missing device UUID.');
  if (dest === 'volume' && (source === 'image' || source === 'blank') && size === null) {
    throw new SimError(400, `Block Device Mapping is Invalid: ${source === 'image' ? 'Images' : 'Blank volumes'} with destination_type 'volume' need to have a non-zero size specified`);
  }
  if (b.tag !== undefined) checkTag('tag', b.tag);
  return {
    bootIndex,
    sourceType: source as BlockDevice['sourceType'],
    destinationType: dest,
    uuid,
    volumeSize: size,
    deleteOnTermination: b.delete_on_termination === undefined ? false : checkBoolean('delete_on_termination', b.delete_on_termination),
    volumeType: typeof b.volume_type === 'string' ? b.volume_type : null,
    volumeId: source === 'volume' ? uuid : null,
    attachmentId: null,
    device: typeof b.device_name === 'string' ? b.device_name : null,
    tag: typeof b.tag === 'string' ? b.tag : null,
  };
}

/** The legacy block_device_mapping: {volume_id, device_name, delete_on_termination} → v2 volume entries. */
function legacyBlockDevice(raw: unknown, index: number): BlockDevice {
  checkType('block_device_mapping', raw, 'object');
  const b = raw as Obj;
  if (typeof b.volume_id !== 'string') throw new SimError(400, 'Block Device Mapping is Invalid: Missing device UUID.');
  return {
    bootIndex: index === 0 ? 0 : null, sourceType: 'volume', destinationType: 'volume', uuid: b.volume_id, volumeSize: null,
    deleteOnTermination: b.delete_on_termination === undefined ? false : checkBoolean('delete_on_termination', b.delete_on_termination),
    volumeType: null, volumeId: b.volume_id, attachmentId: null, device: typeof b.device_name === 'string' ? b.device_name : null, tag: null,
  };
}

function count(key: string, value: unknown): number {
  if (!/^\d+$/.test(String(value)) || Number(value) < 1) throw invalidInput(key, value, `${pyRepr(value)} is less than the minimum of 1`);
  return Number(value);
}

export function parseCreateBody(body: Obj, v: Version): CreateBody {
  checkKeys(undefined, body, ['server', 'os:scheduler_hints', 'OS-SCH-HNT:scheduler_hints'], ['server']);
  checkType('server', body.server, 'object');
  const s = body.server as Obj;
  checkKeys('server', s, serverKeys(v), atLeast(v, 37) ? ['name', 'flavorRef', 'networks'] : ['name', 'flavorRef']);
  const name = checkName('name', s.name);
  checkType('flavorRef', s.flavorRef, 'string', 'integer');
  const flavorRef = String(s.flavorRef).split('/').pop() ?? '';
  if (flavorRef === '') throw invalidInput('flavorRef', s.flavorRef, `${pyRepr(s.flavorRef)} is too short`);
  const imageRef = s.imageRef ?? '';
  if (!(imageRef === '' || isUuid(imageRef))) throw notValidUnderAny('imageRef', imageRef);
  if (s.block_device_mapping !== undefined && s.block_device_mapping_v2 !== undefined) {
    throw new SimError(400, 'Using different block_device_mapping syntaxes is not allowed in the same request.');
  }
  const v2 = s.block_device_mapping_v2 === undefined ? [] : (checkType('block_device_mapping_v2', s.block_device_mapping_v2, 'array'), s.block_device_mapping_v2 as unknown[]);
  const v1 = s.block_device_mapping === undefined ? [] : (checkType('block_device_mapping', s.block_device_mapping, 'array'), s.block_device_mapping as unknown[]);
  const blockDevices = [...v2.map((b) => blockDevice(b, v)), ...v1.map(legacyBlockDevice)];
  if (blockDevices.filter((b) => b.bootIndex === 0).length > 1) {
    throw new SimError(400, 'Block Device Mapping is Invalid: Boot sequence for the instance and image/block device mapping combination is not valid.');
  }
  let securityGroups: string[] | undefined;
  if (s.security_groups !== undefined) {
    checkType('security_groups', s.security_groups, 'array');
    securityGroups = (s.security_groups as unknown[]).map((g) => {
      checkType('security_groups', g, 'object');
      checkKeys('security_groups', g as Obj, ['name']);
      return checkName('name', (g as Obj).name);
    });
  }
  const hints = (body['os:scheduler_hints'] ?? body['OS-SCH-HNT:scheduler_hints']) as unknown;
  let groupId: string | undefined;
  if (hints !== undefined) {
    checkType('os:scheduler_hints', hints, 'object');
    const g = (hints as Obj).group;
    if (g !== undefined) groupId = checkUuid('group', g);
  }
  let tags: string[] = [];
  if (s.tags !== undefined) {
    checkType('tags', s.tags, 'array');
    if ((s.tags as unknown[]).length > 50) throw invalidInput('tags', s.tags, `${pyRepr(s.tags)} is too long`);
    tags = [...new Set((s.tags as unknown[]).map((t) => checkTag('tags', t)))];
  }
  if (s.description !== undefined && s.description !== null) checkString('description', s.description, 0, 255);
  const minCount = s.min_count === undefined ? 1 : count('min_count', s.min_count);
  const maxCount = s.max_count === undefined ? minCount : count('max_count', s.max_count);
  if (minCount > maxCount) throw new SimError(400, 'min_count must be <= max_count');
  if (s.personality !== undefined) checkType('personality', s.personality, 'array');
  const diskConfig = s['OS-DCF:diskConfig'] ?? 'MANUAL';
  if (diskConfig !== 'MANUAL' && diskConfig !== 'AUTO') throw invalidInput('OS-DCF:diskConfig', diskConfig, `${pyRepr(diskConfig)} is not one of ['AUTO', 'MANUAL']`);
  return {
    name,
    flavorRef,
    imageRef: imageRef as string,
    keyName: s.key_name === undefined || s.key_name === null ? undefined : checkName('key_name', s.key_name),
    networks: s.networks === undefined ? undefined : networks(s.networks, v),
    securityGroups,
    userData: s.user_data === undefined || s.user_data === null ? null : userData(s.user_data),
    metadata: s.metadata === undefined ? {} : checkMetadata('metadata', s.metadata),
    availabilityZone: s.availability_zone === undefined || s.availability_zone === null ? undefined : checkName('availability_zone', s.availability_zone),
    blockDevices,
    configDrive: s.config_drive === undefined || s.config_drive === null ? false : checkBoolean('config_drive', s.config_drive),
    diskConfig,
    accessIPv4: typeof s.accessIPv4 === 'string' ? s.accessIPv4 : '',
    accessIPv6: typeof s.accessIPv6 === 'string' ? s.accessIPv6 : '',
    adminPass: typeof s.adminPass === 'string' ? s.adminPass : undefined,
    description: (s.description as string | null | undefined) ?? null,
    tags,
    hostname: s.hostname === undefined ? undefined : checkString('hostname', s.hostname, 2, 255),
    minCount,
    maxCount,
    returnReservationId: s.return_reservation_id === undefined ? false : checkBoolean('return_reservation_id', s.return_reservation_id),
    groupId,
  };
}
