// A settled cluster's parsed spec, for the periodic passes (healing, scaling) that run outside an operation.
import type { DataSource } from 'typeorm';
import type { ClusterRow } from '../src/db/entities/cluster.js';
import { ClusterTemplateEntity } from '../src/db/entities/cluster-template.js';
import { parseClusterSpec } from '../src/kube/spec/parse.js';
import type { ClusterSpec } from '../src/kube/spec/types.js';

/** Undefined when the template is gone or the labels no longer parse (the passes then leave the cluster alone). */
export async function specOf(ds: DataSource, c: ClusterRow): Promise<ClusterSpec | undefined> {
  const t = await ds.getRepository(ClusterTemplateEntity).findOneBy({ uuid: c.cluster_template_id });
  if (!t) return undefined;
  try {
    return parseClusterSpec({ template: t, cluster: c, labels: c.labels }).spec;
  } catch {
    return undefined;
  }
}
