// Hibernation (an extension, issue 28): POST /v1/clusters/{ident}/actions/hibernate and …/wake begin the
// hibernate and wake operations through beginOperation (the row locked, the transition table consulted, the
// intent and its outbox row written in one transaction). A hibernate marks the row hibernated at once, so every
// other change is refused (cluster_hibernated) until a wake succeeds; the worker then shelves every server
// (workers/cluster/hibernate.ts). Magnum's status stays a settled one (UPDATE_COMPLETE once done); the state a
// portal shows comes from hibernationState, with what the hibernation frees on the compute hosts.
import type { ClusterRow, HibernationSchedule } from '../db/entities/cluster.js';
import type { NodeGroupRow } from '../db/entities/nodegroup.js';
import type { ClusterRepo } from '../db/repos/clusters.js';
import type { OperationRepo } from '../db/repos/operations.js';
import { errors } from '../domain/errors.js';
import type { OperationKind } from '../domain/operations.js';
import { enforce } from '../domain/policy.js';
import { beginOperation, started, type OperationDeps } from '../operations/begin.js';
import type { CallerClouds } from '../openstack/caller.js';
import { flavorOf } from '../openstack/ids.js';
import { nextFirings } from './hibernation-schedule.js';
import type { Caller } from './lookup.js';

export interface HibernateDeps {
  clusters: Pick<ClusterRepo, 'update'>;
  outbox: OperationDeps;
}

/** Begins a hibernate; `origin` 'service' for the schedule's (only on a settled cluster). */
export async function startHibernate(deps: HibernateDeps, who: Caller | undefined, c: ClusterRow, now = new Date()): Promise<void> {
  if (who) enforce(who.ctx, 'cluster:update', c);
  const begun = await beginOperation(deps.outbox, c.uuid, {
    kind: 'hibernate',
    ...(who ? {} : { origin: 'service' as const }),
    now,
    change: async (em) => {
      await deps.clusters.update(c.uuid, { hibernation: 'hibernated', hibernated_at: now }, em);
    },
    event: {
      reason: 'HibernateAccepted',
      message: `Hibernation accepted${who ? '' : ' (by its schedule)'}: every worker server, then every control plane server is shelved until SHELVED_OFFLOADED; their ports, volumes and etcd's data stay. Wake it to use it again.`,
    },
  });
  started(begun, () => errors.notFound('Cluster', c.uuid));
}

/** Begins a wake (the row stays hibernated until the worker finds every node Ready). */
export async function startWake(deps: HibernateDeps, who: Caller | undefined, c: ClusterRow, now = new Date()): Promise<void> {
  if (who) enforce(who.ctx, 'cluster:update', c);
  const begun = await beginOperation(deps.outbox, c.uuid, {
    kind: 'wake',
    ...(who ? {} : { origin: 'service' as const }),
    now,
    event: {
      reason: 'WakeAccepted',
      message: `Wake accepted${who ? '' : ' (by its schedule)'}: every control plane server, then every worker server is unshelved; the cluster is awake once its API answers and every node is Ready.`,
    },
  });
  started(begun, () => errors.notFound('Cluster', c.uuid));
}

export type HibernationStateName = 'AWAKE' | 'HIBERNATING' | 'HIBERNATED' | 'WAKING';

/** The state the extension shows: a running hibernate or wake, else the row's mark. */
export function hibernationStateOf(c: Pick<ClusterRow, 'hibernation'>, active: readonly OperationKind[]): HibernationStateName {
  if (active.includes('hibernate')) return 'HIBERNATING';
  if (active.includes('wake')) return 'WAKING';
  return c.hibernation === 'hibernated' ? 'HIBERNATED' : 'AWAKE';
}

/** What shelving every server takes off the compute hosts (the quota usage stays, as Nova counts shelved servers). */
export interface Frees {
  servers: number;
  vcpus: number;
  ram_mb: number;
}

export interface HibernationView {
  cluster_uuid: string;
  state: HibernationStateName;
  hibernated_at: string | null;
  schedule: HibernationSchedule | null;
  /** When the schedule next fires each action (null: no such time within eight days). */
  next: { hibernate: string | null; wake: string | null };
  /** Null when the flavors could not be read. */
  frees: Frees | null;
}

export interface HibernationViewDeps {
  clusters: Pick<ClusterRepo, 'nodegroups'>;
  operations: Pick<OperationRepo, 'active'>;
  outbox: OperationDeps;
  clouds: CallerClouds;
}

/** The servers' vCPUs and RAM by their groups' flavors (a flavor Nova no longer lists counts nothing). */
export async function freedBy(clouds: CallerClouds, who: Caller, c: ClusterRow, groups: readonly NodeGroupRow[]): Promise<Frees | null> {
  try {
    // A member sees the public flavors and the private ones its project may use.
    const flavors = await clouds.for(who).nova().listFlavors();
    const out: Frees = { servers: 0, vcpus: 0, ram_mb: 0 };
    for (const g of groups) {
      const ref = g.flavor_id ?? (g.role === 'master' ? c.master_flavor_id : c.flavor_id);
      const f = ref ? flavorOf(flavors, ref) : undefined;
      out.servers += g.node_count;
      out.vcpus += (f?.vcpus ?? 0) * g.node_count;
      out.ram_mb += (f?.ram ?? 0) * g.node_count;
    }
    return out;
  } catch {
    return null;
  }
}

export async function hibernationView(deps: HibernationViewDeps, who: Caller, c: ClusterRow): Promise<HibernationView> {
  enforce(who.ctx, 'cluster:get', c);
  const active = (await deps.operations.active(deps.outbox.db.manager, c.uuid)).map((o) => o.kind);
  const groups = await deps.clusters.nodegroups([c.uuid]);
  return {
    cluster_uuid: c.uuid,
    state: hibernationStateOf(c, active),
    hibernated_at: c.hibernated_at ? c.hibernated_at.toISOString() : null,
    schedule: c.hibernation_schedule,
    next: nextFirings(c.hibernation_schedule),
    frees: await freedBy(deps.clouds, who, c, groups),
  };
}
