// The job handler of every cluster operation. One run: load the operation (an ended one is a
// duplicate job: nothing to do), take the cluster's lock (held elsewhere: try again shortly), mark
// the operation running, then run its steps in order. Each step is an idempotent ensure, so a run
// resumed after a wait, a retry or a dead worker starts from the first step again and skips what
// is done. A step never blocks on the cloud: it throws Wait and the job is re-queued with a delay.
import { DelayedError, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { DataSource, EntityManager } from 'typeorm';
import { ClusterEntity, type ClusterRow, type Condition } from '../src/db/entities/cluster.js';
import { ClusterEventEntity } from '../src/db/entities/cluster-event.js';
import { NodeGroupEntity } from '../src/db/entities/nodegroup.js';
import { OperationEntity, type OperationKind, type OperationRow } from '../src/db/entities/operation.js';
import { blockingCondition, deriveStatus, type ConditionType } from '../src/domain/cluster-status.js';
import { isBootFailureReason } from '../src/kube/console.js';
import type { OperationJob } from '../src/operations/outbox.js';
import type { Cloud, CloudFactory } from './cloud.js';
import { failureOf, isRetryable, Stop, StepFailure, Wait } from './errors.js';
import { Ledger } from './ledger.js';
import { acquireClusterLock, clusterLockKey, type ClusterLock } from './lock.js';

export interface RunnerHooks {
  /** Called between a cloud create and its ledger record (tests stop a worker exactly there). */
  afterCreate?(type: string, cloudId: string): Promise<void>;
}

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
  /** Retry of retryable cloud errors: base × 2^n (jittered), capped; terminal after maxRetries. */
  backoff?: { baseMs: number; maxMs: number; maxRetries: number };
  hooks?: RunnerHooks;
}

export interface RunContext {
  ds: DataSource;
  cluster: ClusterRow;
  op: OperationRow;
  ledger: Ledger;
  cloudFactory: CloudFactory;
  hooks: RunnerHooks;
  /** Values computed once per run (a server list, the spec), keyed by name; `forget` drops one. */
  memo<T>(key: string, compute: () => Promise<T>): Promise<T>;
  forget(key: string): void;
  /** Called once the run ends, however it ends: releases what the run opened (a cluster API client's connections). */
  onEnd(release: () => void): void;
  /**
   * Like memo, but kept for the operation's later runs in this process (facts that cannot change
   * while it lasts, such as the ids of the cluster's network): dropped with the steps cache.
   */
  memoRuns<T>(key: string, compute: () => Promise<T>): Promise<T>;
  /** How long a step waits before looking at the cloud again (ms). */
  pollMs: number;
  /** The cluster's clients; StepFailure when it has no credential. */
  cloud(): Cloud;
  /** Sets a condition (an event when status or reason changes) and the cluster's derived status. */
  setCondition(type: ConditionType, status: Condition['status'], reason: string, message: string): Promise<void>;
  /** Throws Stop when the operation was cancelled, the cluster is gone, or the lock was lost. */
  checkpoint(): Promise<void>;
  /** An event of the cluster (GET /v1/clusters/{id}/events) without a condition change. */
  event(type: string, reason: string, message: string, severity?: 'info' | 'warning' | 'error'): Promise<void>;
  log(msg: string, extra?: Record<string, unknown>): void;
}

export interface Step {
  name: string;
  /** Parallel operations: the steps that must have finished (in this run) before this one runs. */
  after?: readonly string[];
  /** The condition the step drives; a terminal failure of the step marks it False. */
  condition?: ConditionType;
  run(ctx: RunContext): Promise<void>;
}

export interface OperationSpec {
  kind: OperationKind;
  /** A delete: cancels the cluster's other active operations before it waits for the lock. */
  overtakes?: boolean;
  /** Creates: the operation fails with reason Timeout after the cluster's create_timeout minutes. */
  deadline?: boolean;
  /**
   * Steps form a graph (`after`) rather than a sequence: a step that waits (Wait) holds back only
   * the steps after it, the others go on in the same run; the run re-queues itself with the
   * shortest wait once nothing more can proceed.
   */
  parallel?: boolean;
  steps: readonly Step[];
  /** After the last step; default: the operation succeeded. Returns the job's result. */
  finish?(ctx: RunContext): Promise<unknown>;
}

const DEFAULT_BACKOFF = { baseMs: 1000, maxMs: 60_000, maxRetries: 15 };

type JobData = OperationJob & { retries?: number };

export function operationRunner(deps: RunnerDeps, spec: OperationSpec) {
  const { ds } = deps;
  // A step waiting on a step the operation does not have would be skipped for ever.
  const names = new Set(spec.steps.map((s) => s.name));
  for (const s of spec.steps) {
    for (const d of s.after ?? []) if (!names.has(d)) throw new Error(`${spec.kind}: step ${s.name} comes after ${d}, which the operation does not have`);
  }
  return async (job: Job<JobData>, token?: string): Promise<unknown> => {
    const { operationId } = job.data;
    const op = await ds.getRepository(OperationEntity).findOneBy({ id: operationId });
    if (!op) return { skipped: 'gone' };
    if (op.state === 'succeeded' || op.state === 'failed' || op.state === 'cancelled') return { skipped: op.state };
    if (spec.overtakes) await cancelOthers(ds, op);

    const lock = await acquireClusterLock(deps.redis, clusterLockKey(deps.prefix, op.cluster_id), deps.lockTtlMs ?? 30_000, deps.signal);
    if (!lock) return delay(job, token, deps.lockRetryMs ?? 2000);
    let requeued = false;
    try {
      const started = await start(ds, op);
      if (!started) return { skipped: 'not runnable' };
      const cache = opCache(op.id);
      const { ctx, end } = context(deps, started.cluster, started.op, lock, cache.values);
      let current: Step | undefined;
      const earlier = cache.steps;
      try {
        const done = new Set<string>();
        let waiting: Wait | undefined;
        for (const step of spec.steps) {
          await ctx.checkpoint();
          if (spec.deadline) checkDeadline(ctx);
          if ((step.after ?? []).some((d) => !done.has(d))) continue;
          if (earlier.has(step.name)) {
            done.add(step.name);
            continue;
          }
          current = step;
          try {
            await step.run(ctx);
            done.add(step.name);
            earlier.add(step.name);
          } catch (e) {
            if (!(spec.parallel && e instanceof Wait)) throw e;
            if (!waiting || e.ms < waiting.ms) waiting = e;
          }
        }
        current = undefined;
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
          return delay(job, token, e.ms);
        }
        if (isRetryable(e)) {
          const b = deps.backoff ?? DEFAULT_BACKOFF;
          const retries = (job.data.retries ?? 0) + 1;
          if (retries <= b.maxRetries) {
            ctx.log('retryable cloud error', { step: current?.name, retries, reason: (e as Error).message });
            await job.updateData({ ...job.data, retries });
            requeued = true;
            const exp = Math.min(b.maxMs, b.baseMs * 2 ** (retries - 1));
            return delay(job, token, Math.round(exp * (0.5 + Math.random() / 2)));
          }
        }
        const failure = failureOf(e);
        ctx.log('operation failed', { step: current?.name, reason: failure.reason, message: failure.message });
        try {
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
}
const OP_CACHE = new Map<string, OpCache>();
const OP_CACHE_MAX = 10_000;

function opCache(operationId: string): OpCache {
  let c = OP_CACHE.get(operationId);
  if (!c) {
    c = { steps: new Set(), values: new Map() };
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

/** Re-queues the job to run again in `ms`; the run ends here. */
async function delay(job: Job, token: string | undefined, ms: number): Promise<never> {
  await job.moveToDelayed(Date.now() + ms, token);
  throw new DelayedError();
}

/** A delete overtakes what runs: the cluster's other active operations end as cancelled. */
async function cancelOthers(ds: DataSource, op: OperationRow): Promise<void> {
  await ds.transaction(async (em) => {
    const cancelled = updated<{ id: string; kind: string }>(await em.query(
      `UPDATE operation SET state = 'cancelled', error = 'Cancelled by a delete of the cluster.', finished_at = now(), updated_at = now()
       WHERE cluster_id = $1 AND id <> $2 AND kind <> 'delete' AND state IN ('pending', 'queued', 'running') RETURNING id, kind`,
      [op.cluster_id, op.id],
    ));
    for (const c of cancelled) {
      await event(em, op.cluster_id, c.id, 'operation', 'Cancelled', `The ${c.kind} was cancelled by the delete.`, 'warning');
    }
  });
}

/** Marks the operation running (attempts + 1) and the cluster's status; undefined when it is no longer runnable. */
async function start(ds: DataSource, op: OperationRow): Promise<{ op: OperationRow; cluster: ClusterRow } | undefined> {
  return ds.transaction(async (em) => {
    const cluster = await em.getRepository(ClusterEntity).createQueryBuilder('c').setLock('pessimistic_write').where('c.uuid = :u', { u: op.cluster_id }).getOne();
    if (!cluster) return undefined;
    const rows = updated<OperationRow>(await em.query(
      `UPDATE operation SET state = 'running', attempts = attempts + 1, started_at = coalesce(started_at, now()), updated_at = now()
       WHERE id = $1 AND state IN ('pending', 'queued', 'running') RETURNING *`,
      [op.id],
    ));
    const running = rows[0];
    if (!running) return undefined;
    if (running.attempts === 1) await event(em, cluster.uuid, op.id, 'operation', 'Started', `The ${op.kind} started.`, 'info');
    await writeStatus(em, cluster, running);
    return { op: running, cluster };
  });
}

function context(deps: RunnerDeps, cluster: ClusterRow, op: OperationRow, lock: ClusterLock, runs: Map<string, Promise<unknown>>): { ctx: RunContext; end: () => void } {
  const { ds } = deps;
  const memos = new Map<string, Promise<unknown>>();
  const releases: (() => void)[] = [];
  const ctx: RunContext = {
    ds,
    cluster,
    op,
    ledger: new Ledger(ds, cluster.uuid),
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
      await ds.transaction(async (em) => {
        const row = await em.getRepository(ClusterEntity).createQueryBuilder('c').setLock('pessimistic_write').where('c.uuid = :u', { u: cluster.uuid }).getOne();
        if (!row) throw new Stop('gone');
        const old = row.conditions[type];
        if (old && old.status === status && old.reason === reason && old.message === message) return;
        const since = old && old.status === status ? old.since : new Date().toISOString();
        row.conditions = { ...row.conditions, [type]: { status, reason, message, since } };
        await em.getRepository(ClusterEntity).update({ uuid: cluster.uuid }, { conditions: row.conditions, updated_at: new Date() });
        if (!old || old.status !== status || old.reason !== reason) {
          await event(em, cluster.uuid, op.id, type, reason, message, status === 'False' ? 'error' : 'info');
        }
        ctx.cluster = row;
        await writeStatus(em, row, ctx.op);
      });
    },
    async checkpoint() {
      if (!lock.held) throw new Stop('lock_lost');
      const rows: { state: string }[] = await ds.query('SELECT state FROM operation WHERE id = $1', [op.id]);
      if (rows.length === 0) throw new Stop('gone');
      if (rows[0]!.state !== 'running') throw new Stop('cancelled');
    },
    async event(type, reason, message, severity = 'info') {
      await event(ds.manager, cluster.uuid, op.id, type, reason, message, severity);
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

/** The operation ends; the cluster's status follows through deriveStatus. */
async function end(ctx: RunContext, state: 'succeeded' | 'failed', error: string | null, change?: (em: EntityManager, row: ClusterRow) => Promise<void>): Promise<void> {
  await ctx.ds.transaction(async (em) => {
    const row = await em.getRepository(ClusterEntity).createQueryBuilder('c').setLock('pessimistic_write').where('c.uuid = :u', { u: ctx.cluster.uuid }).getOne();
    if (!row) throw new Stop('gone');
    const rows = updated<OperationRow>(await em.query(
      `UPDATE operation SET state = $2, error = $3, finished_at = now(), updated_at = now() WHERE id = $1 AND state = 'running' RETURNING *`,
      [ctx.op.id, state, error],
    ));
    if (!rows[0]) throw new Stop('cancelled');
    ctx.op = rows[0];
    await change?.(em, row);
    await writeStatus(em, row, ctx.op);
    const verb = ctx.op.kind.charAt(0).toUpperCase() + ctx.op.kind.slice(1).replace(/_(\w)/g, (_m, c: string) => c.toUpperCase());
    await event(em, row.uuid, ctx.op.id, 'operation', `${verb}${state === 'succeeded' ? 'Succeeded' : 'Failed'}`, error ?? `The ${ctx.op.kind} succeeded.`, state === 'failed' ? 'error' : 'info');
  });
}

/** The operation succeeded; `change` writes what it observed in the same transaction. */
export function succeed(ctx: RunContext, change?: (em: EntityManager, row: ClusterRow) => Promise<void>): Promise<unknown> {
  return end(ctx, 'succeeded', null, change).then(() => ({ state: 'succeeded' }));
}

/** The operation failed: the condition (if any) turns False with the reason, node groups of a create fail too. */
async function fail(ctx: RunContext, f: StepFailure, condition: ConditionType | undefined): Promise<void> {
  if (condition) await ctx.setCondition(condition, 'False', f.reason, f.message);
  await end(ctx, 'failed', `${f.reason}: ${f.message}`, async (em) => {
    const reason = `${f.reason}: ${f.message}`;
    const repo = em.getRepository(NodeGroupEntity);
    if (ctx.op.kind === 'create') {
      await repo.update({ cluster_id: ctx.cluster.uuid }, { status: 'CREATE_FAILED', status_reason: reason, updated_at: new Date() });
      return;
    }
    // The node groups the operation was changing (those it marked *_IN_PROGRESS) fail with it.
    const verb = ctx.op.kind === 'nodegroup_create' ? 'CREATE' : ctx.op.kind === 'nodegroup_delete' ? 'DELETE' : 'UPDATE';
    await em.query(
      `UPDATE nodegroup SET status = $2, status_reason = $3, updated_at = now() WHERE cluster_id = $1 AND status LIKE '%\_IN\_PROGRESS'`,
      [ctx.cluster.uuid, `${verb}_FAILED`, reason],
    );
  });
}

/** status/status_reason from the operation and the conditions; only the cluster's latest operation speaks. */
async function writeStatus(em: EntityManager, cluster: ClusterRow, op: OperationRow): Promise<void> {
  const latest: { id: string }[] = await em.query(
    `SELECT id FROM operation WHERE cluster_id = $1 ORDER BY (state IN ('pending', 'queued', 'running')) DESC, created_at DESC LIMIT 1`,
    [cluster.uuid],
  );
  if (latest[0]?.id !== op.id) return;
  const { status, status_reason } = deriveStatus(op, cluster.conditions);
  await em.getRepository(ClusterEntity).update({ uuid: cluster.uuid }, { status, status_reason, updated_at: new Date() });
}

async function event(em: EntityManager, clusterId: string, opId: string, type: string, reason: string, message: string, severity: 'info' | 'warning' | 'error'): Promise<void> {
  await em.getRepository(ClusterEventEntity).insert({ cluster_id: clusterId, operation_id: opId, at: new Date(), type, reason, message, severity });
}

/** The rows of an UPDATE … RETURNING (TypeORM's postgres driver answers [rows, count] for updates). */
function updated<T>(result: unknown): T[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as T[];
  return result as T[];
}
