// One idempotent "ensure" for a named cloud resource of a cluster: the recorded one if it still
// exists, else one found by its deterministic name (a create whose answer was never recorded),
// else a new one, recorded at once. Tagged with the cluster's tag either way (spec §7.5).
// Its twin "purge" walks the same record at delete: the recorded ones and those the cloud still
// holds of the cluster (by tag or name), each deleted, 404 counting as done, and marked deleted.
import { isForbidden, isNotFound, OpenStackError } from '../openstack/errors.js';
import type { Cloud } from './cloud.js';
import { StepFailure, Wait } from './errors.js';
import { clusterTag } from './naming.js';
import type { RunContext } from './step.js';
import { offered } from './services.js';

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

export interface PurgeSpec<C> {
  service: string;
  type: string;
  /** The service's client; a cloud without the service holds nothing of ours. */
  client(cloud: Cloud): Promise<C>;
  /** Candidates by tag or deterministic name (a create that never recorded them); only those marked as the cluster's go. */
  find?(client: C): Promise<Named[]>;
  /** Deletes one: true, or false for a 404 (already gone), marks it deleted; 'going' (not gone yet) makes the purge wait. */
  delete(client: C, id: string): Promise<boolean | 'going'>;
  /** Ledger types that go with it (Octavia's cascade, a router's interfaces): marked deleted once it is gone. */
  children?: readonly string[];
  /** What the wait says is being deleted, e.g. 'server'. */
  noun?: string;
}

/**
 * The delete-side twin of ensure(): the ledger's rows of the type and the cloud's finds marked as the cluster's,
 * each deleted (404 counting as done) and marked deleted at once; the step waits while any is still going.
 */
export async function purge<C>(ctx: RunContext, s: PurgeSpec<C>): Promise<void> {
  try {
    await purgeAll(ctx, s);
  } catch (e) {
    throw isForbidden(e) ? forbiddenToPurge(ctx, s.service, e) : e;
  }
}


/**
 * A delete the cloud's policy refuses to the cluster's credential: no retry changes that (the credential keeps the
 * roles it was made with), so the delete ends saying why and what to do.
 */
export function forbiddenToPurge(ctx: RunContext, service: string, e: OpenStackError): StepFailure {
  const role = service === 'load-balancer' ? 'load-balancer_member' : service === 'key-manager' ? 'creator' : 'member';
  return new StepFailure(
    'Forbidden',
    `${service}: ${(e.fault.message ?? e.message).replace(/\.?$/, '.')} The cluster's application credential keeps the roles its creator had when it was made, ` +
      `and this cloud's policy refuses it: grant the cluster's user the role the service needs (${role} on project ${ctx.cluster.project_id}), ` +
      `rotate the cluster's credential (PATCH /v1/credentials/${ctx.cluster.uuid}, microversion 1.12) and delete the cluster again.`,
  );
}

async function purgeAll<C>(ctx: RunContext, s: PurgeSpec<C>): Promise<void> {
  // No credential any more: a resumed delete already past the cloud.
  if (!ctx.cluster.app_cred_id) return;
  const rows = await ctx.ledger.live(s.type);
  if (rows.length === 0 && !s.find) return;
  const cloud = ctx.cloud();
  const client = await offered(() => s.client(cloud));
  if (!client) return;
  const ids = new Set(rows.map((r) => r.cloud_id));
  for (const r of (await s.find?.(client)) ?? []) if (ours(r, ctx.cluster.uuid)) ids.add(r.id);
  let going = 0;
  for (const id of ids) {
    if ((await s.delete(client, id)) === 'going') going++;
    else await ctx.ledger.markDeleted(s.service, s.type, id);
  }
  if (going > 0) throw new Wait(ctx.pollMs, `${going} ${s.noun ?? s.type}(s) being deleted`);
  for (const type of s.children ?? []) await ctx.ledger.markTypeDeleted(type);
}
