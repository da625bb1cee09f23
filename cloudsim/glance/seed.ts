// The images every Glance simulator starts with: those of the cloud's seed file (cloudsim/seed.yaml).
import { defaultSeed, seedImages, type ProjectIds } from '../seed.js';
import type { GlanceState } from './state.js';

export type { ProjectIds } from '../seed.js';

export function seedGlance(state: GlanceState, projects: ProjectIds = {}): void {
  seedImages(state, defaultSeed().images, projects);
}
