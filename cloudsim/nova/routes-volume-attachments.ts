// /v2.1/servers/{id}/os-volume_attachments (spec openstack-apis §2.10): attach (200 with the
// attachment; Cinder shows the volume reserved, then in-use), list, show and detach (202; the
// volume goes detaching, then available). The server must be active or stopped (409 otherwise).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SimError } from '../common/errors.js';
import { atLeast, versionOf, type Version } from './microversion.js';
import { checkState, findServer } from './routes-servers.js';
import type { BlockDevice, Server } from './servers.js';
import type { NovaState } from './state.js';
import { bodyObject, checkBoolean, checkKeys, checkTag, checkType, checkUuid } from './validate.js';

/** Real-world ms between the reservation and the connected attachment (and for a detach). */
const ATTACH_MS = 2000;

type Params = { id: string; volume: string };

function render(s: Server, b: BlockDevice, v: Version): Record<string, unknown> {
  const out: Record<string, unknown> = atLeast(v, 89) ? {} : { id: b.volumeId };
  Object.assign(out, { serverId: s.id, volumeId: b.volumeId, device: b.device });
  if (atLeast(v, 70)) out.tag = b.tag;
  if (atLeast(v, 79)) out.delete_on_termination = b.deleteOnTermination;
  if (atLeast(v, 89)) Object.assign(out, { attachment_id: b.attachmentId, bdm_uuid: b.volumeId });
  return out;
}

const nextDevice = (s: Server) => {
  const used = new Set(s.blockDevices.map((b) => b.device));
  for (let i = 1; i < 26; i++) {
    const d = `/dev/vd${String.fromCharCode(97 + i)}`;
    if (!used.has(d)) return d;
  }
  throw new SimError(400, 'No free disk device names for prefix vd');
};

export function registerVolumeAttachmentRoutes(scope: FastifyInstance, state: NovaState): void {
  const attached = (request: FastifyRequest<{ Params: Params }>): [Server, BlockDevice] => {
    const s = findServer(state, request, request.params.id);
    const b = s.blockDevices.find((d) => d.volumeId === request.params.volume && d.destinationType === 'volume');
    if (!b) throw new SimError(404, `No volume Block Device Mapping with id ${request.params.volume}.`);
    return [s, b];
  };

  scope.get<{ Params: Params }>('/v2.1/servers/:id/os-volume_attachments', async (request) => {
    const s = findServer(state, request, request.params.id);
    const v = versionOf(request);
    return { volumeAttachments: s.blockDevices.filter((b) => b.volumeId !== null).map((b) => render(s, b, v)) };
  });

  scope.get<{ Params: Params }>('/v2.1/servers/:id/os-volume_attachments/:volume', async (request) => {
    const [s, b] = attached(request);
    return { volumeAttachment: render(s, b, versionOf(request)) };
  });

  scope.post<{ Params: Params }>('/v2.1/servers/:id/os-volume_attachments', async (request) => {
    const v = versionOf(request);
    const s = findServer(state, request, request.params.id);
    const body = bodyObject(request.body);
    checkKeys(undefined, body, ['volumeAttachment'], ['volumeAttachment']);
    checkType('volumeAttachment', body.volumeAttachment, 'object');
    const a = body.volumeAttachment as Record<string, unknown>;
    const allowed = ['volumeId', 'device', ...(atLeast(v, 49) ? ['tag'] : []), ...(atLeast(v, 79) ? ['delete_on_termination'] : [])];
    checkKeys('volumeAttachment', a, allowed, ['volumeId']);
    const volumeId = checkUuid('volumeId', a.volumeId);
    const tag = a.tag === undefined ? null : checkTag('tag', a.tag);
    checkState(s, 'attach_volume', ['active', 'stopped']);
    if (s.blockDevices.some((b) => b.volumeId === volumeId)) throw new SimError(400, `Invalid volume: volume ${volumeId} already attached`);
    const found = state.volumes?.volume(volumeId, s.projectId);
    if (state.volumes && !found) throw new SimError(404, `Volume ${volumeId} could not be found.`);
    // nova.volume.cinder.API.check_availability_zone, without cross_az_attach.
    if (found && !state.behaviour.crossAzAttach && found.availabilityZone !== s.availabilityZone) {
      throw new SimError(
        400,
        `Invalid volume: Instance ${s.id} and volume ${volumeId} are not in the same availability_zone. Instance is in ${s.availabilityZone}. Volume is in ${found.availabilityZone}`,
      );
    }
    const device = nextDevice(s);
    const b: BlockDevice = {
      bootIndex: null, sourceType: 'volume', destinationType: 'volume', uuid: volumeId, volumeSize: null,
      deleteOnTermination: a.delete_on_termination === undefined ? false : checkBoolean('delete_on_termination', a.delete_on_termination),
      volumeType: null, volumeId, attachmentId: null, device, tag,
    };
    const volumes = state.volumes;
    if (volumes) {
      b.attachmentId = volumes.reserve(volumeId, s.id);
      state.clock.after(ATTACH_MS, () => volumes.attach(b.attachmentId!, device));
    }
    s.blockDevices.push(b);
    return { volumeAttachment: render(s, b, v) };
  });

  scope.delete<{ Params: Params }>('/v2.1/servers/:id/os-volume_attachments/:volume', async (request, reply) => {
    const [s, b] = attached(request);
    checkState(s, 'detach_volume', ['active', 'stopped']);
    if (b.bootIndex === 0) throw new SimError(400, 'Cannot detach a root device volume');
    const volumes = state.volumes;
    s.blockDevices = s.blockDevices.filter((d) => d !== b);
    if (volumes && b.attachmentId) {
      const id = b.attachmentId;
      volumes.detaching(id);
      state.clock.after(ATTACH_MS, () => volumes.detached(id));
    }
    return reply.code(202).send();
  });
}
