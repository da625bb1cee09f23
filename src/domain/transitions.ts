// Which operation may start on a cluster in which state: the table every caller consults (the
// API's routes and the service's own healing and scaling), as data. Magnum's spec §5.3 lets a
// request in the wrong state through and drops it; here it is refused, with the error below.
import { clusterStatus, SETTLED_STATUSES, STANDING_STATUSES, type ClusterStatus } from './cluster-status.js';
import { ApiError, errors } from './errors.js';
import type { OperationKind } from './operations.js';

/** Who starts the operation: a caller of the API, or the service itself (auto-healing, autoscaling). */
export type Origin = 'user' | 'service';

/** The refusal of a state: each is one error of the registry. */
export type Refusal =
  /** 409 cluster_state_conflict: "Cluster c is S: <action> is not possible in that state." */
  | { error: 'state_conflict'; action: string }
  /** 400 cluster_state, Magnum's: "<verb> a cluster when status is "S" is not supported." */
  | { error: 'state_unsupported'; verb: 'Upgrading' | 'Updating' }
  /** 409 cluster_not_ready: node groups change only on a settled cluster or after a failed update. */
  | { error: 'not_ready_for_nodegroups' };

export interface Transition {
  /** The statuses it starts from; 'any' (a delete), or 'new': only the create that writes the cluster. */
  from: 'any' | 'new' | ReadonlySet<ClusterStatus>;
  /** What a request gets from any other status. */
  refusal?: Refusal;
  /**
   * With another operation active: 'refuse' (409 operation_in_progress, after the status was found
   * acceptable), 'refuse-first' (before the status is looked at: node group requests name what
   * runs), 'overtake' (a delete cancels it; a second delete joins the first).
   */
  active: 'refuse' | 'refuse-first' | 'overtake';
  /**
   * On a hibernated cluster (its servers shelved): 'allow' (a delete), 'only' (a wake: refused on a cluster that
   * is not hibernated), 'retry' (a hibernate: refused on a hibernated cluster unless its last try failed); absent,
   * refused with cluster_hibernated naming `noun`.
   */
  hibernated?: 'allow' | 'only' | 'retry';
  /** What the request is, in the refusal of a hibernated cluster. */
  noun?: string;
}

/** Settled: a *_COMPLETE status (DELETE_COMPLETE aside). */
const SETTLED: ReadonlySet<ClusterStatus> = new Set(SETTLED_STATUSES);
/** Settled, or after a failed update (which the user may retry, or undo by another). */
const SETTLED_OR_FAILED_UPDATE: ReadonlySet<ClusterStatus> = new Set<ClusterStatus>(STANDING_STATUSES);

const conflict = (action: string): Refusal => ({ error: 'state_conflict', action });
const NODEGROUPS: Refusal = { error: 'not_ready_for_nodegroups' };

export const TRANSITIONS: { readonly [K in OperationKind]: Transition } = {
  create: { from: 'new', refusal: conflict('a create'), active: 'refuse', hibernated: 'allow' },
  update: { from: SETTLED_OR_FAILED_UPDATE, refusal: conflict('an update'), active: 'refuse', noun: 'an update' },
  resize: { from: SETTLED_OR_FAILED_UPDATE, refusal: conflict('a resize'), active: 'refuse', noun: 'a resize' },
  upgrade: { from: SETTLED_OR_FAILED_UPDATE, refusal: { error: 'state_unsupported', verb: 'Upgrading' }, active: 'refuse', noun: 'an upgrade' },
  rotate_ca: { from: SETTLED, refusal: { error: 'state_unsupported', verb: 'Updating' }, active: 'refuse', noun: 'a CA rotation' },
  // The cluster's API must answer (its Secrets and pods change); a failed rotation may be asked again.
  rotate_credential: { from: SETTLED_OR_FAILED_UPDATE, refusal: conflict('a credential rotation'), active: 'refuse', noun: 'a credential rotation' },
  repair: { from: SETTLED, refusal: conflict('a repair'), active: 'refuse', noun: 'a repair' },
  nodegroup_create: { from: SETTLED_OR_FAILED_UPDATE, refusal: NODEGROUPS, active: 'refuse-first', noun: 'a node group change' },
  nodegroup_update: { from: SETTLED_OR_FAILED_UPDATE, refusal: NODEGROUPS, active: 'refuse-first', noun: 'a node group change' },
  nodegroup_delete: { from: SETTLED_OR_FAILED_UPDATE, refusal: NODEGROUPS, active: 'refuse-first', noun: 'a node group change' },
  delete: { from: 'any', active: 'overtake', hibernated: 'allow' },
  // A failed hibernate or wake (UPDATE_FAILED, still marked hibernated) may be asked again, or turned back.
  hibernate: { from: SETTLED_OR_FAILED_UPDATE, refusal: conflict('a hibernation'), active: 'refuse', hibernated: 'retry' },
  wake: { from: SETTLED_OR_FAILED_UPDATE, refusal: conflict('a wake'), active: 'refuse', hibernated: 'only' },
};

/** The service starts its own operations only on a settled cluster: a failed update waits for its owner. */
export const SERVICE_FROM: ReadonlySet<ClusterStatus> = SETTLED;

/** What the table says of one request. */
export type Verdict =
  | { outcome: 'start' }
  /** A delete while the same delete runs: nothing new is written. */
  | { outcome: 'join' }
  | { outcome: 'refused'; why: 'state'; status: string; error: ApiError }
  | { outcome: 'refused'; why: 'busy'; active: OperationKind; error: ApiError };

export interface Subject {
  name: string;
  status: string;
  /** True only for the create that writes the cluster in the same transaction. */
  isNew?: boolean;
  /** Hibernated (or hibernating, or its wake not yet done): the row's `hibernation` is 'hibernated'. */
  hibernated?: boolean;
  /** For the refusal of a hibernated cluster: its UUID (the wake's path). */
  uuid?: string;
}

/** May `kind` start on `cluster`, with the cluster's `active` operations (newest first)? */
export function judge(kind: OperationKind, cluster: Subject, active: readonly OperationKind[], origin: Origin = 'user'): Verdict {
  const t = TRANSITIONS[kind];
  if (t.active === 'overtake') return active.includes(kind) ? { outcome: 'join' } : { outcome: 'start' };
  const busy = (): Verdict | undefined =>
    active[0] === undefined ? undefined : { outcome: 'refused', why: 'busy', active: active[0], error: errors.operationInProgress(cluster.name, active[0]) };
  if (t.active === 'refuse-first') {
    const refused = busy();
    if (refused) return refused;
  }
  if (!startsFrom(t, cluster, origin)) {
    return { outcome: 'refused', why: 'state', status: cluster.status, error: refusalError(t.refusal, cluster) };
  }
  const sleeping = hibernationRefusal(t, cluster);
  if (sleeping) return { outcome: 'refused', why: 'state', status: cluster.status, error: sleeping };
  return busy() ?? { outcome: 'start' };
}

/** What a hibernated cluster (or one that is not, for a wake) answers `t`; undefined when it may start. */
function hibernationRefusal(t: Transition, c: Subject): ApiError | undefined {
  const asleep = c.hibernated === true;
  switch (t.hibernated) {
    case 'allow':
      return undefined;
    case 'only':
      return asleep ? undefined : errors.clusterNotHibernated(c.name);
    case 'retry':
      return asleep && c.status !== 'UPDATE_FAILED' ? errors.clusterAlreadyHibernated(c.name) : undefined;
    case undefined:
      return asleep ? errors.clusterHibernated(c.name, c.uuid ?? c.name, t.noun ?? 'this operation') : undefined;
  }
}

function startsFrom(t: Transition, cluster: Subject, origin: Origin): boolean {
  if (t.from === 'new') return cluster.isNew === true;
  if (cluster.isNew) return false;
  if (t.from === 'any') return true;
  // A status that is none of Magnum's starts nothing but a delete.
  const status = clusterStatus(cluster.status);
  if (status === undefined || (origin === 'service' && !SERVICE_FROM.has(status))) return false;
  return t.from.has(status);
}

function refusalError(r: Refusal | undefined, c: Subject): ApiError {
  switch (r?.error) {
    case 'state_conflict':
      return errors.clusterStateConflict(c.name, c.status, r.action);
    case 'state_unsupported':
      return errors.clusterStateUnsupported(r.verb, c.status);
    case 'not_ready_for_nodegroups':
      return errors.clusterNotReadyForNodegroups(c.name, c.status);
    case undefined:
      // Only 'any' has none, and it refuses nothing.
      return errors.clusterStateConflict(c.name, c.status, 'this operation');
  }
}
