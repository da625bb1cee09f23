// `?rollback=true` on a cluster update (Magnum's PATCH from 1.3; Heat rolled the stack back): a
// resize that fails for good turns back instead of ending. The group's node_count returns to its
// previous value in the database, the servers this operation booted are retired (drained, Node
// deleted, server and port deleted), nodes it had already removed are booted again, and the
// operation ends failed with its original reason; the cluster shows ROLLBACK_COMPLETE (Magnum's
// status after Heat's rollback) with that reason, the group ROLLBACK_COMPLETE. A failure of the
// way back ends it ROLLBACK_FAILED.
import type { StepFailure } from '../../src/steps/errors.js';
import { serverName } from '../../src/steps/naming.js';
import { rolledBack } from '../runner.js';
import type { RunContext } from '../../src/steps/step.js';
import { completeNodeGroups } from './complete.js';
import { clusterSpec, nodeGroups } from '../../src/steps/context.js';
import { groupLabel, observedServers } from './ports.js';

interface RollingBack {
  reason: string;
  message: string;
  /** Names of the servers the operation booted, retired on the way back. */
  booted: string[];
}

export const rollingBack = (ctx: RunContext): RollingBack | undefined => ctx.op.params.rolling_back as RollingBack | undefined;

/** The operation's rollback hook: true when it turned back (asked for, not already turning back). */
export async function rollBackResize(ctx: RunContext, failure: StepFailure): Promise<boolean> {
  const p = ctx.op.params;
  const previous = p.previous_node_count;
  if (p.rollback !== true || rollingBack(ctx) || typeof previous !== 'number') return false;
  const g = (await nodeGroups(ctx)).find((x) => x.uuid === p.nodegroup);
  if (!g) return false;
  // Its servers are named from the operation: those of the group with one of its names are the ones it booted.
  ctx.forget('servers');
  const mine = new Set((await observedServers(ctx)).filter((s) => s.nodegroup === g.uuid).map((s) => s.name));
  const short = (await clusterSpec(ctx)).cluster.shortName;
  const booted: string[] = [];
  for (let i = 0; i < mine.size + 64; i++) {
    const name = serverName(short, groupLabel(g), ctx.op.id, g.uuid, i);
    if (mine.has(name)) booted.push(name);
  }
  const back: RollingBack = { reason: failure.reason, message: failure.message, booted };
  const params = { ...p, rolling_back: back };
  await ctx.ds.transaction(async (em) => {
    await ctx.repos.operations.setParams(em, ctx.op.id, params);
    await ctx.repos.nodegroups.updateByUuid(em, g.uuid, { node_count: previous, updated_at: new Date() });
  });
  ctx.op = { ...ctx.op, params };
  for (const key of ['nodegroups', 'servers', 'plan', 'retiring']) ctx.forget(key);
  const undo = `node group ${g.name} returns to ${previous} node(s)${booted.length > 0 ? `, ${booted.join(', ')} removed` : ''}`;
  await ctx.event('operation', 'RollingBack', `The ${ctx.op.kind} failed (${failure.reason}: ${failure.message}); rolling back: ${undo}.`, 'warning');
  await ctx.setCondition('workers', 'Unknown', 'RollingBack', `Rolling back after ${failure.reason}: ${undo}.`);
  return true;
}

/** The end of a resize: done, or (after its rollback) failed with the group back where it was. */
export async function finishResize(ctx: RunContext, status: 'UPDATE_COMPLETE' | 'CREATE_COMPLETE', group: string): Promise<unknown> {
  const back = rollingBack(ctx);
  if (!back) return completeNodeGroups(ctx, status, group);
  await ctx.event('operation', 'RolledBack', `Node group back to ${String(ctx.op.params.previous_node_count)} node(s) after ${back.reason}.`, 'info');
  return completeNodeGroups(ctx, 'ROLLBACK_COMPLETE', group, rolledBack);
}
