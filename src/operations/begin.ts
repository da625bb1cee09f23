// Starting an operation on a cluster, the one way every starter goes (the API's routes, and the
// service's own auto-healing and autoscaler): in one transaction the cluster row is locked, the
// transition table consulted (src/domain/transitions.ts), the operation's own changes and its row
// written (the outbox), the status derived from it and an event recorded; the relay is woken once
// the transaction has committed. A lost wake-up costs nothing: the relay's listener and sweep find
// the row. Nothing is written when the table refuses.
import type { DataSource, EntityManager } from 'typeorm';
import type { ClusterRow } from '../db/entities/cluster.js';
import type { OperationRow } from '../db/entities/operation.js';
import { ClusterRepo } from '../db/repos/clusters.js';
import { ClusterEventRepo } from '../db/repos/events.js';
import { newOperation, OperationRepo } from '../db/repos/operations.js';
import { deriveStatus } from '../domain/cluster-status.js';
import { errors, type ApiError } from '../domain/errors.js';
import type { OperationKind, OperationParams } from '../domain/operations.js';
import { judge, type Origin, type Verdict } from '../domain/transitions.js';

export interface OperationDeps {
  db: DataSource;
  /** Wakes the outbox relay after the commit (the API's relay); absent, its listener and sweep find the row. */
  kick?: () => void;
}

/** The event that says the operation was accepted (GET /v1/clusters/{id}/events). */
export interface AcceptedEvent {
  reason: string;
  message: string;
  /** 'info' by default; the service's own operations say 'warning'. */
  severity?: 'info' | 'warning';
}

/** A check that finds the request changes nothing: no operation starts. */
export const UNCHANGED = 'unchanged';

export interface BeginSpec<C = undefined, T = undefined> {
  kind: OperationKind;
  /** Who asks; the service starts operations only on settled clusters. Default 'user'. */
  origin?: Origin;
  /** A create: writes the cluster's row (and what belongs to it) first, in the same transaction. */
  insert?: (em: EntityManager) => Promise<void>;
  /**
   * Checks of the request against the locked row that come before the table's (Magnum's order of
   * errors); they throw, or answer UNCHANGED when there is nothing to do. Their result goes to `change`.
   */
  check?: (em: EntityManager, cluster: ClusterRow) => Promise<C | typeof UNCHANGED>;
  /** The operation's own writes once the table allows it (node groups, counts); its result is returned. */
  change?: (em: EntityManager, cluster: ClusterRow, checked: C) => Promise<T>;
  params?: OperationParams | ((value: T) => OperationParams);
  /**
   * Once the operation's row is written: what it holds of the project's quotas until what it makes exists
   * (src/preflight/holds.ts), in the same transaction; it throws the shortage when the bill no longer fits.
   */
  hold?: (em: EntityManager, op: OperationRow, cluster: ClusterRow) => Promise<void>;
  event: AcceptedEvent | ((value: T) => AcceptedEvent);
  /** More events recorded with it (a create's label warnings). */
  notes?: readonly AcceptedEvent[];
  /** When it is accepted (default now): the event's time and the cluster's updated_at. */
  now?: Date;
}

export type Begun<T> =
  | { outcome: 'started'; op: OperationRow; cluster: ClusterRow; value: T }
  /** A delete while the same delete runs: it is that delete. */
  | { outcome: 'joined'; op: OperationRow; cluster: ClusterRow }
  /** A check found nothing to change. */
  | { outcome: 'unchanged'; cluster: ClusterRow }
  | { outcome: 'gone' }
  | Extract<Verdict, { outcome: 'refused' }>;

export async function beginOperation<C = undefined, T = undefined>(deps: OperationDeps, clusterId: string, spec: BeginSpec<C, T>): Promise<Begun<T>> {
  const clusters = new ClusterRepo(deps.db);
  const operations = new OperationRepo(deps.db);
  const events = new ClusterEventRepo(deps.db);
  const now = spec.now ?? new Date();
  const begun = await deps.db.transaction(async (em): Promise<Begun<T>> => {
    if (spec.insert) await spec.insert(em);
    const locked = await clusters.lock(em, clusterId);
    if (!locked) return { outcome: 'gone' };
    const checked = spec.check ? await spec.check(em, locked) : undefined;
    if (checked === UNCHANGED) return { outcome: 'unchanged', cluster: locked };
    const active = await operations.active(em, clusterId);
    const subject = { name: locked.name, uuid: locked.uuid, status: locked.status, isNew: spec.insert !== undefined, hibernated: locked.hibernation === 'hibernated' };
    const verdict = judge(spec.kind, subject, active.map((o) => o.kind), spec.origin);
    if (verdict.outcome === 'refused') return verdict;
    if (verdict.outcome === 'join') return { outcome: 'joined', op: active.find((o) => o.kind === spec.kind)!, cluster: locked };

    const value = (spec.change ? await spec.change(em, locked, checked as C) : undefined) as T;
    const params = typeof spec.params === 'function' ? spec.params(value) : (spec.params ?? {});
    const op = await operations.insert(em, newOperation(clusterId, spec.kind, params));
    // Every starter locks the cluster row first, so only a row written around this function gets here.
    if (op === 'busy') throw errors.operationInProgress(locked.name, (await operations.active(em, clusterId))[0]?.kind ?? 'unknown');
    await spec.hold?.(em, op, locked);
    const { status, status_reason } = deriveStatus(op, locked.conditions);
    // A create's row was written just now: it has not been updated.
    const changes = spec.insert ? { status, status_reason } : { status, status_reason, updated_at: now };
    await clusters.update(clusterId, changes, em);
    const event = typeof spec.event === 'function' ? spec.event(value) : spec.event;
    for (const e of [event, ...(spec.notes ?? [])]) {
      await events.insert({ cluster_id: clusterId, operation_id: op.id, at: now, type: 'operation', reason: e.reason, message: e.message, severity: e.severity ?? 'info' }, em);
    }
    return { outcome: 'started', op, cluster: { ...locked, ...changes }, value };
  });
  if (begun.outcome === 'started') deps.kick?.();
  return begun;
}

/**
 * What the transition table would say of starting `kind` now, read without a lock and writing nothing (a
 * dry-run): the error the request would get, or undefined when it would start (or join). A cluster gone
 * meanwhile is `gone` (the caller's 404).
 */
export async function wouldBegin(deps: OperationDeps, clusterId: string, kind: OperationKind, origin?: Origin): Promise<ApiError | 'gone' | undefined> {
  const cluster = await new ClusterRepo(deps.db).find(clusterId, { all: true });
  if (!cluster || cluster === 'ambiguous') return 'gone';
  const active = await new OperationRepo(deps.db).active(deps.db.manager, clusterId);
  const verdict = judge(kind, { name: cluster.name, uuid: cluster.uuid, status: cluster.status, hibernated: cluster.hibernation === 'hibernated' }, active.map((o) => o.kind), origin);
  return verdict.outcome === 'refused' ? verdict.error : undefined;
}

/** The started operation, for a caller to whom anything else is an error: `gone` says which (a 404). */
export function started<T>(begun: Begun<T>, gone: () => ApiError): Extract<Begun<T>, { outcome: 'started' }> {
  switch (begun.outcome) {
    case 'started':
      return begun;
    case 'gone':
      throw gone();
    case 'refused':
      throw begun.error;
    default:
      throw new Error(`beginOperation: ${begun.outcome} where an operation had to start`);
  }
}
