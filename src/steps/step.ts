// The contract between an operation's steps and the runner that runs them (workers/runner.ts): a step
// is an idempotent ensure (or purge) given a run context, which says what cluster and operation it works for,
// how to reach the cloud and the database, and how to report (conditions, events) or wait (Wait). Core steps
// live in workers/cluster/, an optional capability's in src/features/<name>/steps.ts; both only see this.
import type { DataSource } from 'typeorm';
import type { ClusterRow } from '../db/entities/cluster.js';
import type { OperationRow } from '../db/entities/operation.js';
import type { Repos } from '../db/repos/index.js';
import type { Condition, ConditionType } from '../domain/cluster-status.js';
import type { OperationKind } from '../domain/operations.js';
import type { Cloud, CloudFactory } from './cloud.js';
import type { StepFailure } from './errors.js';
import type { Ledger } from './ledger.js';
import type { StepBill } from '../preflight/quotas.js';

export interface RunnerHooks {
  /** Called between a cloud create and its ledger record (tests stop a worker exactly there). */
  afterCreate?(type: string, cloudId: string): Promise<void>;
  /** Called between Keystone's delete of an application credential and the row forgetting it. */
  afterCredentialDelete?(id: string): Promise<void>;
}

export interface RunContext {
  ds: DataSource;
  /** The repositories, for what a step reads or writes of the database besides its ledger. */
  repos: Repos;
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
  /**
   * The steps of the graph this one must finish before: how a feature's step takes its place in the core graph
   * (workers/cluster/graph.ts) without the core naming it.
   */
  before?: readonly string[];
  /** The condition the step drives; a terminal failure of the step marks it False. */
  condition?: ConditionType;
  /**
   * What the step makes that counts against a quota (src/preflight/quotas.ts), for the cluster and node groups
   * it is given; the API's bill sums the create graph's (src/preflight/footprint.ts). A step that makes
   * nothing a quota counts has none.
   */
  bill?: StepBill;
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
  /**
   * A terminal failure: the operation may turn back instead of ending (a resize asked with
   * rollback=true returns its group to the previous size). True: it goes on, its steps run again
   * from the first (they now undo), and its finish ends it with rolledBack().
   */
  rollback?(ctx: RunContext, failure: StepFailure): Promise<boolean>;
}
