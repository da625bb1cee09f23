// One idempotent "ensure" for a named cloud resource of a cluster: the recorded one if it still
// exists, else one found by its deterministic name (a create whose answer was never recorded),
// else a new one, recorded at once. Tagged with the cluster's tag either way (spec §7.5).
import { isNotFound } from '../../src/openstack/errors.js';
import { clusterTag } from '../naming.js';
import type { RunContext } from '../runner.js';

export interface Named {
  id: string;
  name?: string | null;
  description?: string | null;
  tags?: string[] | null;
}

export interface EnsureSpec<T extends Named> {
  step: string;
  service: string;
  type: string;
  name: string;
  get(id: string): Promise<T>;
  /** Candidates by exact name; only those marked as the cluster's (tag or description) are adopted. */
  findByName(): Promise<T[]>;
  create(): Promise<T>;
  /** Adds the cluster tag (resources that cannot take it in the create body). */
  tag?(id: string): Promise<void>;
}

/** Whether a resource carries the cluster's marker: its tag, or its uuid in the description. */
export function ours(r: Named, uuid: string): boolean {
  return (r.tags ?? []).includes(clusterTag(uuid)) || (r.description ?? '').includes(uuid.toLowerCase());
}

export async function ensure<T extends Named>(ctx: RunContext, s: EnsureSpec<T>): Promise<T> {
  const uuid = ctx.cluster.uuid;
  const record = (id: string) => ctx.ledger.record({ service: s.service, type: s.type, cloudId: id, name: s.name, step: s.step });
  const tag = async (r: T) => {
    if (s.tag && !(r.tags ?? []).includes(clusterTag(uuid))) await s.tag(r.id);
  };
  for (const row of await ctx.ledger.live(s.type)) {
    if (row.name !== s.name) continue;
    try {
      const found = await s.get(row.cloud_id);
      await tag(found);
      return found;
    } catch (e) {
      if (!isNotFound(e)) throw e;
      // Gone behind our back: make it again below.
      await ctx.ledger.markDeleted(s.service, s.type, row.cloud_id);
    }
  }
  const adopted = (await s.findByName()).find((r) => r.name === s.name && ours(r, uuid));
  if (adopted) {
    await record(adopted.id);
    await tag(adopted);
    ctx.log('adopted an unrecorded resource', { type: s.type, id: adopted.id });
    return adopted;
  }
  // A run that lost its lock (its worker presumed dead) must not create anything more.
  await ctx.checkpoint();
  const created = await s.create();
  await ctx.hooks.afterCreate?.(s.type, created.id);
  await record(created.id);
  await tag(created);
  return created;
}
