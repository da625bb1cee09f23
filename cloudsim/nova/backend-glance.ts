// Nova's view of the Glance simulator: the images a project may boot from (public, community,
// its own, or shared with it). Structurally a NovaImages; cloud.ts passes `glanceImages(glance.state)`.
import type { GlanceState } from '../glance/state.js';
import type { NovaImages } from './backends.js';

export function glanceImages(state: GlanceState): NovaImages {
  return {
    image(id, projectId) {
      const i = state.images.get(id);
      if (!i) return undefined;
      const visible = i.visibility === 'public' || i.visibility === 'community' || i.owner === projectId || i.members.includes(projectId);
      return visible ? { id: i.id, name: i.name, status: i.status, minDisk: i.min_disk, minRam: i.min_ram, size: i.size } : undefined;
    },
  };
}
