// A cluster's maintenance window (an extension, issue 28): PUT /v1/clusters/{ident}/maintenance stores a weekly
// window in an IANA time zone and what runs in it (no upgrade, the latest patch of the running minor, or a chosen
// template), each checked (a bad one is a 400 in Magnum's envelope and nothing is stored); DELETE removes them;
// GET shows them with the next window, whether one is open, the upgrade it would run now (or why none) and what the
// latest window did. The worker's pass that runs the windows: maintenance-pass.ts.
import type { ClusterRow, MaintenanceRun, MaintenanceSettings, UpgradePolicy } from '../db/entities/cluster.js';
import type { ClusterTemplateRow } from '../db/entities/cluster-template.js';
import type { ClusterRepo } from '../db/repos/clusters.js';
import type { ClusterTemplateRepo, Visibility } from '../db/repos/cluster-templates.js';
import { errors } from '../domain/errors.js';
import { spanOf, windowProblems, windowState } from '../domain/maintenance-window.js';
import { enforce } from '../domain/policy.js';
import { clusterVersion, latestPatch, runningMinor, upgradeVerdict } from '../domain/upgrade-path.js';
import type { Caller } from './lookup.js';

export type MaintenanceTemplates = Pick<ClusterTemplateRepo, 'find' | 'list'>;

/** The templates of the cluster's project and the public ones, whoever asks (an admin sees no more for it). */
export const projectTemplates = (c: Pick<ClusterRow, 'project_id'>): Visibility => ({ all: false, projectId: c.project_id, hiddenPublic: false });

const FIELD = 'upgrade.cluster_template_id';

/** The settings checked: the window's fields, and a chosen template the cluster's project sees and may upgrade to (stored by UUID). */
export async function checkSettings(templates: MaintenanceTemplates, c: ClusterRow, s: MaintenanceSettings): Promise<MaintenanceSettings> {
  const [problem] = windowProblems(s.window);
  if (problem) throw errors.invalidInput(...problem);
  const window = { day: s.window.day, start: s.window.start, duration_minutes: s.window.duration_minutes, timezone: s.window.timezone };
  const ident = s.upgrade.cluster_template_id;
  if (s.upgrade.auto_upgrade !== 'template') {
    if (ident !== null) throw errors.invalidInput(FIELD, ident, 'A template is named only with auto_upgrade "template".');
    return { window, upgrade: { auto_upgrade: s.upgrade.auto_upgrade, cluster_template_id: null } };
  }
  if (ident === null || ident.trim() === '') throw errors.invalidInput(FIELD, 'None', 'auto_upgrade "template" names the template to upgrade to.');
  const t = await templates.find(ident, projectTemplates(c));
  if (t === 'ambiguous') throw errors.invalidInput(FIELD, ident, 'More than one template has this name: name it by its UUID.');
  if (!t) throw errors.templateNotFoundBadRequest(ident);
  if (t.coe !== 'kubernetes') throw errors.invalidInput(FIELD, ident, 'Not a Kubernetes template.');
  const v = upgradeVerdict(clusterVersion(c), t.labels);
  if (!v.ok) throw errors.invalidInput(FIELD, ident, `Not a valid upgrade target: ${v.reason}`);
  return { window, upgrade: { auto_upgrade: 'template', cluster_template_id: t.uuid } };
}

/**
 * Stores (or with null removes) the settings. A window already open when they are set does not run: the
 * windows run from the next one on.
 */
export async function setMaintenance(
  deps: { clusters: Pick<ClusterRepo, 'update'>; templates: MaintenanceTemplates },
  who: Caller,
  c: ClusterRow,
  settings: MaintenanceSettings | null,
  now = new Date(),
): Promise<void> {
  enforce(who.ctx, 'cluster:update', c);
  const checked = settings ? await checkSettings(deps.templates, c, settings) : null;
  // What an open window waited for is moot now; what a window did stays.
  const last = c.maintenance_last?.outcome === 'waiting' ? null : c.maintenance_last;
  await deps.clusters.update(c.uuid, { maintenance: checked, maintenance_claimed: now, maintenance_last: last });
}

export type Planned =
  | { ok: true; template: ClusterTemplateRow; from: string; to: string; kind: 'patch' | 'minor' }
  | { ok: false; reason: string };

/** The upgrade the policy would run on the cluster now, or why none. */
export async function plannedUpgrade(templates: MaintenanceTemplates, c: ClusterRow, policy: UpgradePolicy): Promise<Planned> {
  const current = clusterVersion(c);
  if (policy.auto_upgrade === 'none') return { ok: false, reason: 'No automatic upgrade is chosen.' };
  if (policy.auto_upgrade === 'template') {
    const id = policy.cluster_template_id ?? '';
    const t = await templates.find(id, projectTemplates(c));
    if (!t || t === 'ambiguous') return { ok: false, reason: `The chosen template ${id} no longer exists for the cluster's project.` };
    const v = upgradeVerdict(current, t.labels);
    if (v.ok) return { ok: true, template: t, from: v.from, to: v.to, kind: v.kind };
    if (v.refusal === 'same') return { ok: false, reason: `Already at the chosen template's version (${t.name}, ${v.to}).` };
    return { ok: false, reason: `The chosen template is no longer a valid target: ${v.reason}` };
  }
  const rows = await templates.list(projectTemplates(c), { sortKey: 'id', sortDir: 'asc', limit: 10_000 }, undefined);
  const best = latestPatch(current, rows === 'bad-marker' ? [] : rows);
  if (best) return { ok: true, template: best.template, from: best.from, to: best.to, kind: 'patch' };
  const minor = runningMinor(current);
  return { ok: false, reason: minor ? `Already at the latest patch of ${minor} (${current ?? 'its default version'}).` : `The running version ${current} is none the upgrade path knows.` };
}

export interface MaintenanceView {
  cluster_uuid: string;
  settings: MaintenanceSettings | null;
  /** Whether a window is open now, and which. */
  open_now: boolean;
  open_window: { start: string; end: string } | null;
  next_window: { start: string; end: string } | null;
  /** What a window would run now; null with `nothing_planned` saying why not. */
  planned_upgrade: { cluster_template_id: string; name: string; from: string; to: string; kind: 'patch' | 'minor' } | null;
  nothing_planned: string | null;
  last_run: MaintenanceRun | null;
}

export async function maintenanceView(templates: MaintenanceTemplates, who: Caller, c: ClusterRow, now = new Date()): Promise<MaintenanceView> {
  enforce(who.ctx, 'cluster:get', c);
  const s = c.maintenance;
  const state = s ? windowState(s.window, now) : undefined;
  const planned = s ? await plannedUpgrade(templates, c, s.upgrade) : { ok: false as const, reason: 'No maintenance window is set.' };
  return {
    cluster_uuid: c.uuid,
    settings: s,
    open_now: state?.open !== undefined,
    open_window: state?.open ? spanOf(state.open) : null,
    next_window: state ? spanOf(state.next) : null,
    ...plannedWire(planned),
    last_run: c.maintenance_last,
  };
}

/** The planned upgrade as the answers show it, or why none. */
const plannedWire = (p: Planned): Pick<MaintenanceView, 'planned_upgrade' | 'nothing_planned'> =>
  p.ok
    ? { planned_upgrade: { cluster_template_id: p.template.uuid, name: p.template.name, from: p.from, to: p.to, kind: p.kind }, nothing_planned: null }
    : { planned_upgrade: null, nothing_planned: p.reason };

/** The upgrade planner's line (the caller's cluster:get already checked): the next window and what it would run; null without one. */
export async function nextMaintenance(templates: MaintenanceTemplates, c: ClusterRow, now = new Date()): Promise<NextMaintenance | null> {
  const s = c.maintenance;
  if (!s) return null;
  return {
    ...spanOf(windowState(s.window, now).next),
    timezone: s.window.timezone,
    ...plannedWire(await plannedUpgrade(templates, c, s.upgrade)),
  };
}

export interface NextMaintenance {
  start: string;
  end: string;
  timezone: string;
  planned_upgrade: MaintenanceView['planned_upgrade'];
  nothing_planned: string | null;
}
