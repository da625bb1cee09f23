// The worker's pass over the maintenance windows (every half minute, beside the hibernation schedule): for each
// cluster with a window open now whose start is not yet claimed, a settled cluster's planned upgrade begins through
// planUpgrade and startUpgrade, the API's path (the same checks, quota and outbox), as the service's own operation
// acting as the cluster's project (its application credential), the window claimed in the row (a compare-and-set on
// maintenance_claimed) in the start's own transaction: a restarted worker or a second one never runs it twice, and
// one that dies before the start commits leaves it to the next pass. A busy or hibernated cluster is not claimed:
// the next pass tries again while the window is open, and a window that closes so is recorded once as skipped.
// Every outcome is an event in the cluster's timeline and the row's maintenance_last.
import { IsNull, MoreThan, Not, type DataSource, type EntityManager } from 'typeorm';
import { ClusterEntity, type ClusterRow, type MaintenanceOutcome, type MaintenanceRun } from '../db/entities/cluster.js';
import { ClusterRepo } from '../db/repos/clusters.js';
import { ClusterEventRepo } from '../db/repos/events.js';
import { clusterStatus } from '../domain/cluster-status.js';
import { ApiError } from '../domain/errors.js';
import { OpenStackError } from '../openstack/errors.js';
import { windowState } from '../domain/maintenance-window.js';
import { MAX_VERSION } from '../domain/microversion.js';
import { SERVICE_FROM } from '../domain/transitions.js';
import type { Caller } from './lookup.js';
import { plannedUpgrade, type MaintenanceTemplates } from './maintenance-window.js';
import { planUpgrade, startUpgrade, type PlanUpgradeDeps, type UpgradeDeps } from './upgrade.js';
import { returnedRows } from '../db/returning.js';

export interface MaintenancePassDeps {
  db: DataSource;
  templates: MaintenanceTemplates;
  plan: PlanUpgradeDeps;
  upgrade: UpgradeDeps;
  /** The cluster's project as the service acts in it (its application credential); undefined when it has none. */
  callerFor(c: ClusterRow): Promise<Caller | undefined>;
}

export interface WindowRun {
  cluster: string;
  window_start: string;
  outcome: MaintenanceOutcome;
  reason?: string;
}

/** Why the service may not start an operation on the cluster now; undefined when it may. */
function unsettled(c: ClusterRow): string | undefined {
  if (c.hibernation === 'hibernated') return 'the cluster is hibernated';
  const status = clusterStatus(c.status);
  return status && SERVICE_FROM.has(status) ? undefined : `the cluster is ${c.status}`;
}

/** Claims the window starting at `start` (with the run it began, when one did): true once, for the first claimer. */
async function claim(db: DataSource | EntityManager, uuid: string, start: Date, run?: MaintenanceRun): Promise<boolean> {
  const rows = await db.query(
    `UPDATE cluster SET maintenance_claimed = $2, maintenance_last = COALESCE($3::jsonb, maintenance_last)
      WHERE uuid = $1 AND maintenance IS NOT NULL AND (maintenance_claimed IS NULL OR maintenance_claimed < $2) RETURNING id`,
    [uuid, start.toISOString(), run ? JSON.stringify(run) : null],
  );
  return returnedRows(rows).length > 0;
}

/** Another worker's pass claimed the window first (and began its upgrade): this one's start rolls back. */
class WindowTaken extends Error {}

/** One pass at `now` (the injected clock): what each window did. */
export async function runMaintenance(deps: MaintenancePassDeps, now: Date): Promise<WindowRun[]> {
  const clusters = new ClusterRepo(deps.db);
  const events = new ClusterEventRepo(deps.db);
  const out: WindowRun[] = [];
  const record = async (c: ClusterRow, start: Date, outcome: MaintenanceOutcome, reason: string | null, upgrade: MaintenanceRun['upgrade'] = null, written = false) => {
    const run: MaintenanceRun = { window_start: start.toISOString(), outcome, reason, upgrade, at: now.toISOString() };
    if (!written) await clusters.update(c.uuid, { maintenance_last: run });
    out.push({ cluster: c.uuid, window_start: run.window_start, outcome, ...(reason ? { reason } : {}) });
  };
  const note = (c: ClusterRow, reason: string, message: string, severity: 'info' | 'warning') =>
    events.insert({ cluster_id: c.uuid, operation_id: null, at: now, type: 'maintenance', reason, message, severity });
  let afterId = 0;
  for (;;) {
    const page = await deps.db.getRepository(ClusterEntity).find({ where: { maintenance: Not(IsNull()), id: MoreThan(afterId) }, order: { id: 'ASC' }, take: 500 });
    if (page.length === 0) return out;
    afterId = page.at(-1)!.id;
    for (const c of page) {
      const state = windowState(c.maintenance!.window, now);
      const claimed = c.maintenance_claimed?.getTime() ?? -Infinity;
      const open = state.open && state.open.start.getTime() > claimed ? state.open : undefined;
      if (open) {
        const busy = unsettled(c);
        if (busy) {
          // Not claimed: the next pass tries again while the window is open. Written once per reason.
          const last = c.maintenance_last;
          if (last?.outcome !== 'waiting' || last.window_start !== open.start.toISOString() || last.reason !== busy) await record(c, open.start, 'waiting', busy);
          else out.push({ cluster: c.uuid, window_start: last.window_start, outcome: 'waiting', reason: busy });
          continue;
        }
        // Claimed as it begins: with the upgrade's start (one transaction), or as nothing runs.
        await runWindow(deps, c, open.start, now, record, note);
      } else if (!state.open && state.previous.start.getTime() > claimed) {
        // A window that closed unclaimed: the cluster was busy all along (or no worker ran), said once.
        if (!(await claim(deps.db, c.uuid, state.previous.start))) continue;
        const start = state.previous.start.toISOString();
        const last = c.maintenance_last;
        const why = last?.outcome === 'waiting' && last.window_start === start ? `busy the whole window (${last.reason})` : 'no worker ran while it was open';
        await record(c, state.previous.start, 'skipped', why);
        await note(c, 'MaintenanceSkipped', `The maintenance window of ${start} ran nothing: ${why}.`, 'warning');
      }
    }
  }
}

type RecordRun = (c: ClusterRow, start: Date, outcome: MaintenanceOutcome, reason: string | null, upgrade?: MaintenanceRun['upgrade'], written?: boolean) => Promise<void>;
type NoteEvent = (c: ClusterRow, reason: string, message: string, severity: 'info' | 'warning') => Promise<void>;

/**
 * An open window of a settled cluster: the planned upgrade begun, the window claimed in the start's own transaction
 * (a pass that dies before it leaves the window to the next pass; of two workers at once one begins it), or, claimed
 * first, why nothing ran.
 */
async function runWindow(deps: MaintenancePassDeps, c: ClusterRow, start: Date, now: Date, record: RecordRun, note: NoteEvent): Promise<void> {
  const at = start.toISOString();
  const planned = await plannedUpgrade(deps.templates, c, c.maintenance!.upgrade);
  if (!planned.ok) {
    if (!(await claim(deps.db, c.uuid, start))) return;
    await record(c, start, 'nothing', planned.reason);
    await note(c, 'MaintenanceNothingToDo', `The maintenance window of ${at} ran nothing: ${planned.reason}`, 'info');
    return;
  }
  let reason: string;
  try {
    const who = await deps.callerFor(c);
    if (!who) reason = 'The cluster has no application credential to act with.';
    else {
      const plan = await planUpgrade(deps.plan, who, c, { cluster_template: planned.template.uuid }, MAX_VERSION);
      const why = `by its maintenance window of ${at}, ${c.maintenance!.upgrade.auto_upgrade === 'latest_patch' ? 'the latest patch of its minor' : 'the chosen template'}`;
      const upgrade = { cluster_template_id: plan.target.uuid, name: plan.target.name, from: plan.from, to: plan.to };
      const run: MaintenanceRun = { window_start: at, outcome: 'started', reason: null, upgrade, at: now.toISOString() };
      try {
        // The claim and the last run are written with the upgrade's status, so a page following the cluster reads them together.
        const taking = async (em: EntityManager) => {
          if (!(await claim(em, c.uuid, start, run))) throw new WindowTaken();
        };
        await startUpgrade(deps.upgrade, c, plan, { origin: 'service', why, now, claim: taking });
      } catch (e) {
        if (e instanceof WindowTaken) return;
        throw e;
      }
      await record(c, start, 'started', null, upgrade, true);
      return;
    }
  } catch (e) {
    if (e instanceof ApiError) reason = e.message;
    else if (e instanceof OpenStackError) {
      // The cloud or Keystone refused or did not answer (its clients' failures are OpenStackErrors): the details go to the worker's log, not to the tenant's timeline.
      console.error(JSON.stringify({ level: 'error', msg: 'maintenance upgrade failed', cluster: c.uuid, window: at, reason: (e as Error).message }));
      reason = 'The cloud could not be asked to check the upgrade; the next window tries again.';
    } else throw e; // the database: nothing claimed, the next pass tries again while the window is open
  }
  if (!(await claim(deps.db, c.uuid, start))) return;
  await record(c, start, 'refused', reason);
  await note(c, 'MaintenanceUpgradeRefused', `The maintenance window of ${at} did not upgrade to ${planned.template.name} (${planned.from} → ${planned.to}): ${reason}`, 'warning');
}
