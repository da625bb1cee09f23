// The job handler of every cluster operation. One run: load the operation (an ended one is a
// duplicate job: nothing to do), take the cluster's lock (held elsewhere: try again shortly), mark
// the operation running, then run its steps in order. Each step is an idempotent ensure, so a run
// resumed after a wait, a retry or a dead worker starts from the first step again and skips what
// is done. A step never blocks on the cloud: it throws Wait and the job is re-queued with a delay.
import { DelayedError, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';
import type { ClusterRow } from '../src/db/entities/cluster.js';
import type { OperationRow } from '../src/db/entities/operation.js';
import { repositories, type Repos } from '../src/db/repos/index.js';
import { blockingCondition, type Condition, type ConditionType } from '../src/domain/cluster-status.js';
import type { OperationKind } from '../src/domain/operations.js';
import { isBootFailureReason } from '../src/bootstrap/console.js';
import type { OperationJob } from '../src/operations/queue.js';
import { OperationStore, type EndChange, type Lost } from '../src/operations/store.js';
import type { Cloud, CloudFactory } from '../src/steps/cloud.js';
import { failureOf, isRetryable, retryNote, Stop, StepFailure, Wait } from '../src/steps/errors.js';
import { PgLedger } from '../src/steps/ledger.js';
import { acquireClusterLock, clusterLockKey, type ClusterLock } from './lock.js';
import type { OperationSpec, RunContext, RunnerHooks, Step } from '../src/steps/step.js';



export interface RunnerDeps {
  ds: DataSource;
  redis: Redis;
  prefix: string;
  cloud: CloudFactory;
  /** Aborted when the worker closes: the run's lock is no longer renewed and it stops at its next step. */
  signal: AbortSignal;
  /** Expiry of the cluster lock (renewed every third of it). Default 30 s. */
  lockTtlMs?: number;
  /** Delay before a job that found its cluster locked runs again. Default 2 s. */
  lockRetryMs?: number;
  /** How long a waiting step waits before it looks again. Default 2 s. */
  pollMs?: number;
  /** Retry of retryable errors: base × 2^n (jittered), capped; terminal after maxRetries in a row (a run that completes a step or reaches a wait starts the count again). */
  backoff?: { baseMs: number; maxMs: number; maxRetries: number };
  hooks?: RunnerHooks;
}




const DEFAULT_BACKOFF = { baseMs: 1000, maxMs: 60_000, maxRetries: 15 };

/**
 * retries: retryable failures in a row of a sequential operation's run. held: in a parallel operation, each step
 * failing retryably, its failures in a row and the time before which it is not run again (only what comes after it
 * waits for it meanwhile).
 */
type JobData = OperationJob & { retries?: number; held?: Record<string, { retries: number; until: number }> };

export function operationRunner(deps: RunnerDeps, spec: OperationSpec) {
  const store = new OperationStore(deps.ds);
  // A step waiting on a step the operation does not have would be skipped for ever.
  const names = new Set(spec.steps.map((s) => s.name));
  for (const s of spec.steps) {
    for (const d of s.after ?? []) if (!names.has(d)) throw new Error(`${spec.kind}: step ${s.name} comes after ${d}, which the operation does not have`);
  }
  return async (job: Job<JobData>, token?: string): Promise<unknown> => {
    const { operationId } = job.data;
    const op = await store.load(operationId);
    if (!op) return { skipped: 'gone' };
    if (op.state === 'succeeded' || op.state === 'failed' || op.state === 'cancelled') return { skipped: op.state };
    if (spec.overtakes) await store.cancelOthers(op);

    const lock = await acquireClusterLock(deps.redis, clusterLockKey(deps.prefix, op.cluster_id), deps.lockTtlMs ?? 30_000, deps.signal);
    if (!lock) return delay(job, token, deps.lockRetryMs ?? 2000);
    let requeued = false;
    try {
      const started = await store.startRun(op);
      if (!started) return { skipped: 'not runnable' };
      const cache = opCache(op.id);
      const { ctx, end } = context(deps, store, started.cluster, started.op, lock, cache.values);
      let current: Step | undefined;
      const earlier = cache.steps;
      /** Steps this run completed: progress, which resets the retry budget. */
      let completed = 0;
      /** A parallel operation's step ran out of retries: its failure ends the operation. */
      let exhausted = false;
      try {
        const done = new Set<string>();
        let waiting: Wait | undefined;
        const b = deps.backoff ?? DEFAULT_BACKOFF;
        const held = { ...(job.data.held ?? {}) };
        const heldBefore = JSON.stringify(held);
        /** Waits `ms` (the shortest of the run's waits and held steps' backoffs wins). */
        const waitFor = (w: Wait) => {
          if (!waiting || w.ms < waiting.ms) waiting = w;
        };
        for (const step of spec.steps) {
          await ctx.checkpoint();
          if (spec.deadline) checkDeadline(ctx);
          if ((step.after ?? []).some((d) => !done.has(d))) continue;
          if (earlier.has(step.name)) {
            done.add(step.name);
            continue;
          }
          const h = held[step.name];
          if (h && h.until > Date.now()) {
            waitFor(new Wait(h.until - Date.now(), `${step.name} is retried later`));
            continue;
          }
          // A step that waited looks again when its wait is over, not at every run another step's shorter wait brings.
          const due = cache.due.get(step.name);
          if (spec.parallel && due !== undefined && due > Date.now()) {
            waitFor(new Wait(due - Date.now(), `${step.name} looks again later`));
            continue;
          }
          current = step;
          try {
            await step.run(ctx);
            completed++;
            done.add(step.name);
            earlier.add(step.name);
            delete held[step.name];
            await clearRetryNote(ctx, cache, step);
          } catch (e) {
            if (spec.parallel && e instanceof Wait) {
              delete held[step.name];
              cache.due.set(step.name, Date.now() + e.ms);
              waitFor(e);
              continue;
            }
            // A retryable failure holds back only what comes after the step: independent branches go on. Its own
            // failures in a row are counted: past maxRetries it ends the operation (below), never looping for ever.
            if (!(spec.parallel && isRetryable(e))) throw e;
            const retries = (held[step.name]?.retries ?? 0) + 1;
            if (retries > b.maxRetries) {
              exhausted = true;
              throw e;
            }
            const ms = backoffMs(b, retries);
            held[step.name] = { retries, until: Date.now() + ms };
            ctx.log('retryable error', { step: step.name, retries, reason: (e as Error).message });
            await noteRetry(ctx, cache, step, e, retries, b.maxRetries, ms);
            waitFor(new Wait(ms, `${step.name} failed (${(e as Error).message}); again in ${ms} ms`));
          }
        }
        current = undefined;
        if (JSON.stringify(held) !== heldBefore) {
          const { held: _, ...rest } = job.data;
          await job.updateData(Object.keys(held).length > 0 ? { ...rest, held } : rest);
        }
        if (waiting) throw waiting;
        await ctx.checkpoint();
        return spec.finish ? await spec.finish(ctx) : await succeed(ctx);
      } catch (e) {
        if (e instanceof Stop) {
          ctx.log('run stopped', { why: e.why });
          return { stopped: e.why };
        }
        if (e instanceof Wait) {
          requeued = true;
          // The run got where it waits: the retry budget counts failures in a row, not over the
          // operation's life (a long upgrade meets many passing faults; each must not cost more).
          if (job.data.retries) await job.updateData({ ...job.data, retries: 0 });
          return await delay(job, token, e.ms);
        }
        if (isRetryable(e) && !exhausted) {
          const b = deps.backoff ?? DEFAULT_BACKOFF;
          const retries = (completed > 0 ? 0 : (job.data.retries ?? 0)) + 1;
          if (retries <= b.maxRetries) {
            ctx.log('retryable error', { step: current?.name, retries, reason: (e as Error).message });
            await job.updateData({ ...job.data, retries });
            requeued = true;
            const ms = backoffMs(b, retries);
            if (current) await noteRetry(ctx, cache, current, e, retries, b.maxRetries, ms);
            return await delay(job, token, ms);
          }
        }
        const failure = failureOf(e);
        ctx.log('operation failed', { step: current?.name, reason: failure.reason, message: failure.message });
        try {
          if (spec.rollback && (await spec.rollback(ctx, failure))) {
            ctx.log('rolling back', { reason: failure.reason });
            // What earlier runs completed was the way forward; the way back walks every step again.
            cache.steps.clear();
            cache.values.clear();
            cache.due.clear();
            requeued = true;
            return await delay(job, token, 0);
          }
          await fail(ctx, failure, failure.condition ?? current?.condition);
        } catch (e2) {
          if (e2 instanceof Stop) return { stopped: e2.why };
          throw e2;
        }
        return { failed: failure.reason };
      } finally {
        end();
      }
    } finally {
      await lock.release();
      // Ended, stopped or handed over: a later run (maybe elsewhere) starts from the first step again.
      if (!requeued) OP_CACHE.delete(operationId);
    }
  };
}

/**
 * What an operation's earlier runs in this process completed (steps) and learnt (memoRuns): a
 * re-queued run (a step waited) goes on from where they were rather than walking every ensure
 * again. Kept per process only: a run elsewhere (after a crash or a lost lock) starts from the
 * first step, the ensures being idempotent. Bounded: the oldest operations are forgotten first.
 */
interface OpCache {
  steps: Set<string>;
  values: Map<string, Promise<unknown>>;
  /** Steps whose condition says they retry after an error: what it said before. */
  notes: Map<string, { type: ConditionType; before: Condition | undefined }>;
  /** Parallel operations: when each step that waited is due to look again. */
  due: Map<string, number>;
}

/** The step's condition says what failed, how often so far and when the next try is (best effort: never fails the run). */
async function noteRetry(ctx: RunContext, cache: OpCache, step: Step, e: unknown, tries: number, maxTries: number, ms: number): Promise<void> {
  const type = step.condition;
  if (!type) return;
  if (!cache.notes.has(step.name)) cache.notes.set(step.name, { type, before: ctx.cluster.conditions[type] });
  await ctx.setCondition(type, 'Unknown', 'CloudErrorRetrying', retryNote(e, tries, maxTries, new Date(Date.now() + ms))).catch(() => undefined);
}

/** A step that retried went through: its condition no longer says it retries (back to what it said before). */
async function clearRetryNote(ctx: RunContext, cache: OpCache, step: Step): Promise<void> {
  const note = cache.notes.get(step.name);
  if (!note) return;
  cache.notes.delete(step.name);
  if (ctx.cluster.conditions[note.type]?.reason !== 'CloudErrorRetrying') return;
  const b = note.before;
  await ctx.setCondition(note.type, b?.status ?? 'Unknown', b?.reason ?? 'Recovered', b?.message ?? `${step.name} went through after the error.`);
}
const OP_CACHE = new Map<string, OpCache>();
const OP_CACHE_MAX = 10_000;

function opCache(operationId: string): OpCache {
  let c = OP_CACHE.get(operationId);
  if (!c) {
    c = { steps: new Set(), values: new Map(), notes: new Map(), due: new Map() };
    OP_CACHE.set(operationId, c);
    if (OP_CACHE.size > OP_CACHE_MAX) OP_CACHE.delete(OP_CACHE.keys().next().value!);
  }
  return c;
}

/** The promise memoised under `key` in `memos`, computed once; a failure is not kept. */
function memoIn<T>(memos: Map<string, Promise<unknown>>, key: string, compute: () => Promise<T>): Promise<T> {
  let p = memos.get(key) as Promise<T> | undefined;
  if (!p) {
    p = compute();
    memos.set(key, p);
    p.catch(() => memos.delete(key));
  }
  return p;
}

/** The n-th retry's delay: base × 2^(n-1), capped, jittered down to half. */
function backoffMs(b: { baseMs: number; maxMs: number }, n: number): number {
  const exp = Math.min(b.maxMs, b.baseMs * 2 ** (n - 1));
  return Math.round(exp * (0.5 + Math.random() / 2));
}

/** Re-queues the job to run again in `ms`; the run ends here. */
async function delay(job: Job, token: string | undefined, ms: number): Promise<never> {
  await job.moveToDelayed(Date.now() + ms, token);
  throw new DelayedError();
}

function context(
  deps: RunnerDeps,
  store: OperationStore,
  cluster: ClusterRow,
  op: OperationRow,
  lock: ClusterLock,
  runs: Map<string, Promise<unknown>>,
): { ctx: RunContext; end: () => void } {
  const { ds } = deps;
  const memos = new Map<string, Promise<unknown>>();
  const releases: (() => void)[] = [];
  const ctx: RunContext = {
    ds,
    repos: repositories(ds),
    cluster,
    op,
    ledger: new PgLedger(ds, cluster.uuid),
    cloudFactory: deps.cloud,
    hooks: deps.hooks ?? {},
    pollMs: deps.pollMs ?? 2000,
    memo: (key, compute) => memoIn(memos, key, compute),
    memoRuns: (key, compute) => memoIn(runs, key, compute),
    forget(key) {
      memos.delete(key);
    },
    onEnd(release) {
      releases.push(release);
    },
    cloud() {
      const c = deps.cloud.forCluster(ctx.cluster);
      if (!c) throw new StepFailure('NoCredential', 'The cluster has no application credential.');
      return c;
    },
    async setCondition(type, status, reason, message) {
      if (!lock.held) throw new Stop('lock_lost');
      const row = await store.setCondition(cluster.uuid, ctx.op, type, status, reason, message);
      if (row === 'gone') throw new Stop('gone');
      if (row) ctx.cluster = row;
    },
    async checkpoint() {
      if (!lock.held) throw new Stop('lock_lost');
      const now = await store.state(op.id);
      if (now === undefined) throw new Stop('gone');
      if (now.state !== 'running') throw new Stop('cancelled');
      // A fence beside the Redis lock: a run started since this one (its lock lost to a Redis outage
      // or restart without this run noticing yet) owns the operation; this one stops here.
      if (now.attempts !== op.attempts) throw new Stop('lock_lost');
    },
    async event(type, reason, message, severity = 'info') {
      await store.event(cluster.uuid, op.id, type, reason, message, severity);
    },
    log(msg, extra = {}) {
      console.log(JSON.stringify({ level: 'info', msg, cluster: cluster.uuid, operation: op.id, kind: op.kind, ...extra }));
    },
  };
  const end = () => {
    for (const release of releases.splice(0)) {
      try {
        release();
      } catch (e) {
        ctx.log('release failed', { error: (e as Error).message });
      }
    }
  };
  return { ctx, end };
}

/** A create past its create_timeout fails with reason Timeout on the condition it waits on. */
function checkDeadline(ctx: RunContext): void {
  const minutes = ctx.cluster.create_timeout;
  if (minutes <= 0) return;
  if (Date.now() - new Date(ctx.op.created_at).getTime() <= minutes * 60_000) return;
  const [waiting, c] = blockingCondition(ctx.cluster.conditions) ?? ['control_plane', undefined];
  // A cause the waiting step found (a node's console) stays the reason, and the message says it.
  const cause = c && isBootFailureReason(c.reason) ? c : undefined;
  throw new StepFailure(cause?.reason ?? 'Timeout', `The create did not complete within ${minutes} minutes${cause ? `: ${cause.message}` : '.'}`, waiting);
}

/** A write that found the cluster gone or the operation cancelled stops the run. */
function ended(result: OperationRow | Lost, ctx: RunContext): void {
  if (result === 'gone') throw new Stop('gone');
  if (result === 'not-running') throw new Stop('cancelled');
  ctx.op = result;
}

/** The operation succeeded; `change` writes what it observed in the same transaction. */
export async function succeed(ctx: RunContext, change?: EndChange): Promise<unknown> {
  ended(await new OperationStore(ctx.ds).succeed(ctx.op, change), ctx);
  return { state: 'succeeded' };
}

/**
 * The operation failed and undid what it had changed (its rollback hook turned it back, its steps
 * ran again): it ends failed with the original failure as its error; the cluster shows
 * ROLLBACK_COMPLETE (deriveStatus), and `change` writes what the operation observed.
 */
export async function rolledBack(ctx: RunContext, change?: EndChange): Promise<unknown> {
  const back = ctx.op.params.rolling_back as { reason: string; message: string };
  const params = { ...ctx.op.params, rolled_back: true };
  await ctx.ds.transaction((em) => ctx.repos.operations.setParams(em, ctx.op.id, params));
  ctx.op = { ...ctx.op, params };
  ended(await new OperationStore(ctx.ds).rolledBack(ctx.op, `${back.reason}: ${back.message}`, change), ctx);
  return { failed: back.reason, rolledBack: true };
}

/** The operation failed: the condition (if any) turns False with the reason, node groups of a create fail too. */
async function fail(ctx: RunContext, f: StepFailure, condition: ConditionType | undefined): Promise<void> {
  if (condition) await ctx.setCondition(condition, 'False', f.reason, f.message);
  ended(await new OperationStore(ctx.ds).fail(ctx.op, `${f.reason}: ${f.message}`), ctx);
}
