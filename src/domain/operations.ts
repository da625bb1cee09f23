// What an operation on a cluster is, as the domain sees it: its kind and where it is in its life.
// The database stores these (db/entities/operation.ts); the API, the workers and the status
// derivation speak them.

/** Every kind of operation a cluster can run; a job of the queue is named by its kind. */
export const OPERATION_KINDS = [
  'create',
  'update',
  'resize',
  'upgrade',
  'delete',
  'rotate_ca',
  /** A new application credential (the API made it and switched the row): the cluster's consumers get it, then the replaced ones are deleted. */
  'rotate_credential',
  /** Auto-healing: replaces the servers in params.servers (ids), workers only, with a surge of one. */
  'repair',
  'nodegroup_create',
  'nodegroup_update',
  'nodegroup_delete',
  /** Every server shelved (workers first, then the control planes): compute freed, ports, volumes and etcd's data kept. */
  'hibernate',
  /** Every shelved server unshelved (control planes first), until the API answers and every node is Ready. */
  'wake',
] as const;
export type OperationKind = (typeof OPERATION_KINDS)[number];

/** pending: written, not yet on the queue; queued: on BullMQ (job id = id); then running and an end state. */
export const OPERATION_STATES = ['pending', 'queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type OperationState = (typeof OPERATION_STATES)[number];

/** The states of an operation that still has work to do (at most one per cluster, a delete aside). */
export const ACTIVE_STATES: readonly OperationState[] = ['pending', 'queued', 'running'];

export const isActive = (state: OperationState): boolean => ACTIVE_STATES.includes(state);

/** Parameters an operation carries (its row's params): what to change, decided when it was accepted. */
export type OperationParams = Record<string, unknown>;
