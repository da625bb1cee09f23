// Nova's view of the Cinder simulator: volumes it may boot from or attach, volumes it creates for
// boot from volume, and the attachments that move a volume reserved → in-use → detaching →
// available. Structurally a NovaVolumes; cloud.ts passes `cinderVolumes(cinder.state)`.
import type { CinderState, Volume } from '../cinder/state.js';
import type { NovaVolume, NovaVolumes } from './backends.js';

const view = (v: Volume): NovaVolume => ({ id: v.id, status: v.status, size: v.size, availabilityZone: v.availabilityZone, imageRef: v.imageRef, bootable: v.bootable });

export function cinderVolumes(state: CinderState): NovaVolumes {
  return {
    volume(id, projectId) {
      const v = state.volumes.get(id);
      return v && v.projectId === projectId ? view(v) : undefined;
    },
    create(req) {
      const type = state.typeOf(req.volumeType ?? state.defaultTypeName);
      state.checkQuota(req.projectId, req.size);
      const v = state.create({
        volumeType: type.name,
        projectId: req.projectId,
        userId: req.userId,
        size: req.size,
        name: req.name,
        ...(req.availabilityZone !== undefined ? { availabilityZone: req.availabilityZone } : {}),
        ...(req.imageRef ? { imageRef: req.imageRef, bootable: true } : {}),
      });
      return view(v);
    },
    hasType(idOrName) {
      try {
        state.typeOf(idOrName);
        return true;
      } catch {
        return false;
      }
    },
    reserve(volumeId, serverId) {
      return state.reserve(state.volumes.get(volumeId)!, serverId, false).id;
    },
    attach(attachmentId, device) {
      const a = state.attachments.get(attachmentId);
      if (a) state.complete(a, device);
    },
    detaching(attachmentId) {
      const a = state.attachments.get(attachmentId);
      const v = a && state.volumes.get(a.volumeId);
      if (v) v.status = 'detaching';
    },
    detached(attachmentId) {
      const a = state.attachments.get(attachmentId);
      if (a) state.detach(a);
    },
    delete(volumeId) {
      const v = state.volumes.get(volumeId);
      if (!v || v.status === 'deleting') return;
      try {
        state.delete(v);
      } catch {
        // Not deletable any more (someone else attached it): Nova logs and leaves it.
      }
    },
  };
}
