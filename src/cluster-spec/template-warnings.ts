// The label warnings of a cluster template: what the parser says of its labels for a cluster made from it
// as it stands (one control plane, one worker, the template's own fields). Magnum accepts any labels on a
// template; a value a cluster create would refuse is a warning here too, naming the label and the reason.
import { ApiError } from '../domain/errors.js';
import { parseClusterSpec } from './parse.js';
import type { TemplateInput } from './types.js';

/** A cluster made from the template, for the parser only (never stored). */
const SAMPLE = { uuid: '00000000-0000-4000-8000-000000000000', name: 'template', master_count: 1, node_count: 1, project_id: 'template-project' };

export function templateLabelWarnings(t: TemplateInput & { labels: Record<string, string> | null }): string[] {
  if (t.coe !== 'kubernetes') return [];
  try {
    return parseClusterSpec({ template: t, cluster: SAMPLE, labels: t.labels }).warnings;
  } catch (e) {
    if (e instanceof ApiError) return [`${e.message} A cluster create from this template is refused until it changes.`];
    throw e;
  }
}
