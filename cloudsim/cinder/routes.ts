// Cinder v3 API (spec openstack-apis §6): volumes (list, detail, show, create, update, delete),
// their metadata, and the attachments API (3.27+) as a stub Nova's attach can use. Served under
// /v3/{project_id} and, from microversion 3.67, under /v3. Volume types and zones: routes-types.ts.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SimError } from '../common/errors.js';
import { compareBy, metadataFilter, one, parseBool, withParams, type RawQuery } from '../common/query.js';
import { callerOf, hostUrl } from '../common/service-app.js';
import type { Attachment, CinderState, Volume } from './state.js';

export const MIN_VERSION = '3.0';
export const MAX_VERSION = '3.71';

const versions = new WeakMap<FastifyRequest, number>();
export const minorOf = (request: FastifyRequest) => versions.get(request) ?? 0;

/** OpenStack-API-Version: volume 3.N (default 3.0), echoed; 400 malformed, 406 out of range. */
export function registerCinderMicroversions(scope: FastifyInstance): void {
  scope.addHook('onRequest', async (request, reply) => {
    reply.header('vary', 'OpenStack-API-Version');
    let raw: string | undefined;
    const h = request.headers['openstack-api-version'];
    if (typeof h === 'string') {
      for (const part of h.split(',')) {
        const [service, value] = part.trim().split(/\s+/);
        if (service?.toLowerCase() === 'volume' && value !== undefined) raw = value;
      }
    }
    let minor = 0;
    if (raw !== undefined) {
      if (raw.toLowerCase() === 'latest') minor = Number(MAX_VERSION.split('.')[1]);
      else {
        const m = /^(\d+)\.(0|[1-9]\d*)$/.exec(raw);
        if (!m) throw new SimError(400, `Invalid API version request string ${raw}.`);
        if (m[1] !== '3' || Number(m[2]) > Number(MAX_VERSION.split('.')[1])) {
          reply.header('openstack-api-version', `volume ${raw}`);
          throw new SimError(406, `Version ${raw} is not supported by the API. Minimum is ${MIN_VERSION} and maximum is ${MAX_VERSION}.`);
        }
        minor = Number(m[2]);
      }
    }
    reply.header('openstack-api-version', `volume 3.${minor}`);
    versions.set(request, minor);
  });
}

export type Params = { project_id?: string; id?: string; key?: string };

/** The project the URL addresses: the token's (400 "Malformed request url" when the path names another). */
export function projectOf(request: FastifyRequest<{ Params: Params }>): string {
  const caller = callerOf(request);
  const inPath = request.params.project_id;
  if (inPath === undefined) {
    if (minorOf(request) < 67) throw new SimError(404, 'The resource could not be found.');
    return caller.projectId;
  }
  if (inPath !== caller.projectId) throw new SimError(400, 'Malformed request url');
  return inPath;
}

function base(request: FastifyRequest<{ Params: Params }>, projectId: string): string {
  return request.params.project_id === undefined ? `${hostUrl(request)}/v3` : `${hostUrl(request)}/v3/${projectId}`;
}

function renderAttachment(a: Attachment): Record<string, unknown> {
  return {
    id: a.id,
    attachment_id: a.id,
    volume_id: a.volumeId,
    server_id: a.serverId,
    host_name: a.hostName,
    device: a.device,
    attached_at: a.attachedAt,
  };
}

function renderVolume(s: CinderState, v: Volume, request: FastifyRequest<{ Params: Params }>, href: string): Record<string, unknown> {
  const minor = minorOf(request);
  const admin = callerOf(request).isAdmin;
  const body: Record<string, unknown> = {
    id: v.id,
    name: v.name,
    description: v.description,
    status: v.status,
    size: v.size,
    availability_zone: v.availabilityZone,
    created_at: v.createdAt,
    updated_at: v.updatedAt,
    attachments: s.attachmentsOf(v.id).filter((a) => a.status === 'attached').map(renderAttachment),
    volume_type: v.volumeType,
    snapshot_id: v.snapshotId,
    source_volid: v.sourceVolid,
    metadata: v.metadata,
    links: [
      { rel: 'self', href: `${href}/volumes/${v.id}` },
      { rel: 'bookmark', href: `${href.replace('/v3', '')}/volumes/${v.id}` },
    ],
    user_id: v.userId,
    bootable: v.bootable ? 'true' : 'false',
    encrypted: false,
    replication_status: null,
    consistencygroup_id: null,
    multiattach: v.multiattach,
    migration_status: null,
    'os-vol-tenant-attr:tenant_id': v.projectId,
  };
  if (v.imageRef) body.volume_image_metadata = { image_id: v.imageRef };
  if (admin) {
    body['os-vol-host-attr:host'] = 'cinder-sim@lvm#lvm';
    body['os-vol-mig-status-attr:migstat'] = null;
    body['os-vol-mig-status-attr:name_id'] = null;
  }
  if (minor >= 13) body.group_id = null;
  if (minor >= 21 && admin) body.provider_id = null;
  if (minor >= 48) {
    body.service_uuid = 'a1b2c3d4-0000-4000-8000-000000000001';
    body.shared_targets = false;
  }
  if (minor >= 61 && admin) body.cluster_name = null;
  if (minor >= 63) body.volume_type_id = s.types.first('name', v.volumeType)?.id ?? null;
  if (minor >= 65) body.consumes_quota = true;
  return body;
}

const SORT_KEYS: Record<string, (v: Volume) => unknown> = {
  created_at: (v) => v.seq,
  updated_at: (v) => v.updatedAt,
  id: (v) => v.id,
  name: (v) => v.name,
  size: (v) => v.size,
  status: (v) => v.status,
  availability_zone: (v) => v.availabilityZone,
  bootable: (v) => v.bootable,
};

/** `metadata={"k":"v"}` (JSON, or the Python-literal form the CLI sends). */
function parseMetadataFilter(raw: string): Record<string, string> {
  const f = metadataFilter(raw);
  if (!f) throw new SimError(400, `Invalid input received: Invalid filter metadata=${raw}`);
  return f;
}

function listVolumes(s: CinderState, request: FastifyRequest<{ Params: Params }>, detail: boolean) {
  const projectId = projectOf(request);
  const caller = callerOf(request);
  const q = request.query as RawQuery;
  const allTenants = caller.isAdmin && parseBool(one(q, 'all_tenants') ?? 'false') === true;
  const name = one(q, 'name');
  let vols = (name !== undefined ? s.volumes.by('name', name) : allTenants ? [...s.volumes.values()] : s.volumes.by('project', projectId)).filter(
    (v) => allTenants || v.projectId === projectId,
  );
  const status = one(q, 'status');
  if (status !== undefined) vols = vols.filter((v) => v.status === status);
  const bootable = one(q, 'bootable');
  if (bootable !== undefined) vols = vols.filter((v) => v.bootable === parseBool(bootable));
  const az = one(q, 'availability_zone');
  if (az !== undefined) vols = vols.filter((v) => v.availabilityZone === az);
  const md = one(q, 'metadata');
  if (md !== undefined) {
    const want = parseMetadataFilter(md);
    vols = vols.filter((v) => Object.entries(want).every(([k, x]) => v.metadata[k] === x));
  }
  const keys: { get: (v: Volume) => unknown; desc: boolean }[] = [];
  const sortSpec = one(q, 'sort') ?? (one(q, 'sort_key') ? `${one(q, 'sort_key')}:${one(q, 'sort_dir') ?? 'desc'}` : 'created_at:desc');
  for (const part of sortSpec.split(',')) {
    const [key, dir = 'desc'] = part.trim().split(':');
    const get = SORT_KEYS[key!];
    if (!get) throw new SimError(400, `Invalid input received: Invalid sort key ${key}`);
    if (dir !== 'asc' && dir !== 'desc') throw new SimError(400, `Invalid input received: Unknown sort direction, must be 'desc' or 'asc'`);
    keys.push({ get, desc: dir === 'desc' });
  }
  keys.push({ get: (v) => v.seq, desc: keys[0]?.desc ?? true });
  const order = compareBy(keys);
  vols.sort(order);
  const marker = one(q, 'marker');
  if (marker !== undefined) {
    const at = vols.findIndex((v) => v.id === marker);
    if (at < 0) throw new SimError(400, `Invalid input received: marker [${marker}] not found`);
    vols = vols.slice(at + 1);
  }
  const rawOffset = one(q, 'offset');
  if (rawOffset !== undefined) {
    if (!/^\d+$/.test(rawOffset)) throw new SimError(400, `Invalid input received: offset must be a non-negative integer`);
    vols = vols.slice(Number(rawOffset));
  }
  const rawLimit = one(q, 'limit');
  if (rawLimit !== undefined && !/^\d+$/.test(rawLimit)) throw new SimError(400, `Invalid input received: limit must be a non-negative integer`);
  const limit = Math.min(rawLimit === undefined ? s.maxLimit : Number(rawLimit), s.maxLimit);
  const page = vols.slice(0, limit);
  const href = base(request, projectId);
  const body: Record<string, unknown> = {
    volumes: page.map((v) =>
      detail ? renderVolume(s, v, request, href) : { id: v.id, name: v.name, links: (renderVolume(s, v, request, href).links as unknown[]) },
    ),
  };
  if (limit > 0 && page.length === limit) {
    const params = withParams(q, { marker: page[page.length - 1]!.id, offset: undefined });
    body.volumes_links = [{ rel: 'next', href: `${href}/volumes${detail ? '/detail' : ''}?${params.toString()}` }];
  }
  return body;
}

function metadataOf(body: unknown, key: 'metadata' | 'meta'): Record<string, string> {
  const m = body && typeof body === 'object' ? (body as Record<string, unknown>)[key] : undefined;
  if (!m || typeof m !== 'object' || Array.isArray(m)) throw new SimError(400, 'Malformed request body');
  for (const [k, v] of Object.entries(m)) {
    if (typeof v !== 'string') throw new SimError(400, `Invalid input received: The value of ${k} must be a string`);
    if (k.length === 0 || k.length > 255) throw new SimError(400, 'Invalid input received: Metadata key length must be 1-255');
  }
  return m as Record<string, string>;
}

export function registerCinderRoutes(scope: FastifyInstance, s: CinderState): void {
  registerCinderMicroversions(scope);
  const find = (request: FastifyRequest<{ Params: Params }>): Volume => {
    const projectId = projectOf(request);
    const v = s.volumes.get(request.params.id!);
    if (!v || (v.projectId !== projectId && !callerOf(request).isAdmin)) throw new SimError(404, `Volume ${request.params.id} could not be found.`);
    return v;
  };
  for (const root of ['/v3/:project_id', '/v3']) {
    type R = FastifyRequest<{ Params: Params }>;
    // Quota sets: limits (and with ?usage=true, in_use/reserved per resource); admins may read any project.
    scope.get(`${root}/os-quota-sets/:target`, async (req: FastifyRequest<{ Params: Params & { target: string }; Querystring: { usage?: string } }>) => {
      const caller = callerOf(req);
      const target = req.params.target;
      if (target !== caller.projectId && !caller.isAdmin) throw new SimError(403, 'Policy does not allow volume_extension:quotas:show to be performed.');
      const q = s.quotaOf(target);
      const used = s.usage(target);
      const usage = /^(1|true|yes)$/i.test(req.query.usage ?? '');
      const entry = (k: 'volumes' | 'gigabytes') => (usage ? { limit: q[k], in_use: used[k], reserved: 0, allocated: 0 } : q[k]);
      const unlimited = (n: number) => (usage ? { limit: n, in_use: 0, reserved: 0, allocated: 0 } : n);
      return {
        quota_set: {
          id: target,
          volumes: entry('volumes'),
          gigabytes: entry('gigabytes'),
          snapshots: unlimited(-1),
          backups: unlimited(-1),
          backup_gigabytes: unlimited(-1),
          per_volume_gigabytes: unlimited(-1),
          groups: unlimited(-1),
        },
      };
    });
    // Absolute limits with usage (what clients check before creating volumes).
    scope.get(`${root}/limits`, async (req: R) => {
      const projectId = projectOf(req);
      const q = s.quotaOf(projectId);
      const used = s.usage(projectId);
      return {
        limits: {
          rate: [],
          absolute: {
            maxTotalVolumes: q.volumes,
            totalVolumesUsed: used.volumes,
            maxTotalVolumeGigabytes: q.gigabytes,
            totalGigabytesUsed: used.gigabytes,
            maxTotalSnapshots: -1,
            totalSnapshotsUsed: 0,
            maxTotalBackups: -1,
            totalBackupsUsed: 0,
            maxTotalBackupGigabytes: -1,
            totalBackupGigabytesUsed: 0,
          },
        },
      };
    });
    scope.get(`${root}/volumes`, async (req: R) => listVolumes(s, req, false));
    scope.get(`${root}/volumes/detail`, async (req: R) => listVolumes(s, req, true));
    scope.get(`${root}/volumes/:id`, async (req: R) => ({ volume: renderVolume(s, find(req), req, base(req, projectOf(req))) }));
    scope.post(`${root}/volumes`, async (req: R, reply: FastifyReply) => {
      const projectId = projectOf(req);
      const b = (req.body as { volume?: Record<string, unknown> } | undefined)?.volume;
      if (!b || typeof b !== 'object') throw new SimError(400, "Missing required element 'volume' in request body.");
      let size = b.size;
      let source: Volume | undefined;
      if (typeof b.source_volid === 'string') {
        source = s.volumes.get(b.source_volid);
        if (!source || source.projectId !== projectId) throw new SimError(404, `Volume ${b.source_volid} could not be found.`);
        size ??= source.size;
      }
      if (typeof b.snapshot_id === 'string') throw new SimError(404, `Snapshot ${b.snapshot_id} could not be found.`);
      if (typeof size === 'string' && /^\d+$/.test(size)) size = Number(size);
      if (typeof size !== 'number' || !Number.isInteger(size) || size <= 0) {
        throw new SimError(400, `Invalid input received: Volume size '${String(size)}' must be an integer and greater than 0`);
      }
      if (source && size < source.size) throw new SimError(400, 'Invalid input received: Volume size cannot be lesser than the source volume size.');
      const metadata = b.metadata === undefined || b.metadata === null ? {} : metadataOf(b, 'metadata');
      const str = (k: string) => (typeof b[k] === 'string' ? (b[k] as string) : null);
      const type = s.typeOf(str('volume_type') ?? s.defaultTypeName);
      const zone = str('availability_zone') ?? source?.availabilityZone ?? s.zones[0] ?? 'nova';
      if (!s.zones.includes(zone)) throw new SimError(400, `Availability zone '${zone}' is invalid.`);
      if (source && source.availabilityZone !== zone) throw new SimError(400, 'Invalid input received: Volume must be in the same availability zone as the source volume');
      s.checkQuota(projectId, size);
      const v = s.create({
        size,
        projectId,
        userId: callerOf(req).userId,
        name: str('name'),
        description: str('description'),
        volumeType: type.name,
        availabilityZone: zone,
        imageRef: str('imageRef'),
        bootable: str('imageRef') !== null || (source?.bootable ?? false),
        sourceVolid: source?.id ?? null,
        multiattach: b.multiattach === true,
        metadata: { ...metadata },
      });
      return reply.code(202).send({ volume: renderVolume(s, v, req, base(req, projectId)) });
    });
    scope.put(`${root}/volumes/:id`, async (req: R) => {
      const v = find(req);
      const b = (req.body as { volume?: Record<string, unknown> } | undefined)?.volume;
      if (!b || typeof b !== 'object') throw new SimError(400, "Missing required element 'volume' in request body.");
      if (typeof b.name === 'string' || b.name === null) v.name = b.name as string | null;
      if (typeof b.display_name === 'string') v.name = b.display_name;
      if (typeof b.description === 'string' || b.description === null) v.description = b.description as string | null;
      if (b.metadata !== undefined) v.metadata = { ...metadataOf(b, 'metadata') };
      s.volumes.refile(v.id);
      return { volume: renderVolume(s, v, req, base(req, projectOf(req))) };
    });
    scope.delete(`${root}/volumes/:id`, async (req: R, reply: FastifyReply) => {
      s.delete(find(req));
      return reply.code(202).send();
    });

    // metadata
    scope.get(`${root}/volumes/:id/metadata`, async (req: R) => ({ metadata: find(req).metadata }));
    scope.post(`${root}/volumes/:id/metadata`, async (req: R) => {
      const v = find(req);
      v.metadata = { ...v.metadata, ...metadataOf(req.body, 'metadata') };
      return { metadata: v.metadata };
    });
    scope.put(`${root}/volumes/:id/metadata`, async (req: R) => {
      const v = find(req);
      v.metadata = { ...metadataOf(req.body, 'metadata') };
      return { metadata: v.metadata };
    });
    scope.get(`${root}/volumes/:id/metadata/:key`, async (req: R) => {
      const v = find(req);
      const value = v.metadata[req.params.key!];
      if (value === undefined) throw new SimError(404, `Volume ${v.id} has no metadata with key ${req.params.key}.`);
      return { meta: { [req.params.key!]: value } };
    });
    scope.put(`${root}/volumes/:id/metadata/:key`, async (req: R) => {
      const v = find(req);
      const meta = metadataOf(req.body, 'meta');
      if (Object.keys(meta).length !== 1 || !(req.params.key! in meta)) throw new SimError(400, 'Request body and URI mismatch');
      v.metadata = { ...v.metadata, ...meta };
      return { meta };
    });
    scope.delete(`${root}/volumes/:id/metadata/:key`, async (req: R, reply: FastifyReply) => {
      const v = find(req);
      if (!(req.params.key! in v.metadata)) throw new SimError(404, `Volume ${v.id} has no metadata with key ${req.params.key}.`);
      const { [req.params.key!]: _gone, ...rest } = v.metadata;
      void _gone;
      v.metadata = rest;
      return reply.code(200).send();
    });

    // attachments (3.27+): reserve → (connector) → in-use; delete → available
    const needs27 = (req: R) => {
      if (minorOf(req) < 27) throw new SimError(404, 'The resource could not be found.');
    };
    const renderAtt = (a: Attachment) => ({
      id: a.id,
      status: a.status,
      instance: a.serverId,
      volume_id: a.volumeId,
      attached_at: a.attachedAt,
      detached_at: null,
      attach_mode: a.mode,
      connection_info: a.status === 'attached' ? { driver_volume_type: 'iscsi', data: {} } : {},
    });
    const findAtt = (req: R): Attachment => {
      const projectId = projectOf(req);
      const a = s.attachments.get(req.params.id!);
      const v = a && s.volumes.get(a.volumeId);
      if (!a || !v || (v.projectId !== projectId && !callerOf(req).isAdmin)) throw new SimError(404, `VolumeAttachment ${req.params.id} could not be found.`);
      return a;
    };
    scope.post(`${root}/attachments`, async (req: R) => {
      needs27(req);
      const projectId = projectOf(req);
      const b = (req.body as { attachment?: Record<string, unknown> } | undefined)?.attachment;
      if (!b || typeof b.volume_uuid !== 'string') throw new SimError(400, "Missing required element 'attachment' in request body.");
      const v = s.volumes.get(b.volume_uuid);
      if (!v || (v.projectId !== projectId && !callerOf(req).isAdmin)) throw new SimError(404, `Volume ${b.volume_uuid} could not be found.`);
      const a = s.reserve(v, typeof b.instance_uuid === 'string' ? b.instance_uuid : null, !!b.connector, b.mode === 'ro' ? 'ro' : 'rw');
      return { attachment: renderAtt(a) };
    });
    scope.get(`${root}/attachments/:id`, async (req: R) => {
      needs27(req);
      return { attachment: renderAtt(findAtt(req)) };
    });
    scope.put(`${root}/attachments/:id`, async (req: R) => {
      needs27(req);
      const a = findAtt(req);
      const b = (req.body as { attachment?: Record<string, unknown> } | undefined)?.attachment;
      if (!b?.connector) throw new SimError(400, 'Invalid input received: connector is required');
      s.complete(a, typeof (b.connector as Record<string, unknown>).mountpoint === 'string' ? ((b.connector as Record<string, unknown>).mountpoint as string) : undefined);
      return { attachment: renderAtt(a) };
    });
    scope.post(`${root}/attachments/:id/action`, async (req: R, reply: FastifyReply) => {
      needs27(req);
      const a = findAtt(req);
      if (!req.body || typeof req.body !== 'object' || !('os-complete' in req.body)) throw new SimError(400, 'Invalid input received: unknown action');
      s.complete(a);
      return reply.code(204).send();
    });
    scope.delete(`${root}/attachments/:id`, async (req: R) => {
      needs27(req);
      const a = findAtt(req);
      s.detach(a);
      return { attachments: [] };
    });
  }
}
