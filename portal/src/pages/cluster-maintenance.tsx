// The maintenance window on the cluster page (issue 28): a weekly window (day, start, duration, IANA time zone,
// the browser's by default) and what runs in it (nothing, the latest patch of the running minor, or a template
// picked from the upgrade planner's valid targets), saved with PUT …/maintenance; the service checks them and its
// refusal is shown at the form. Below: the next window in its zone and in the browser's time, what it would run,
// and what the latest window did. The upgrade card shows the next window too (windowLine).
import { useEffect, useState } from 'preact/hooks';
import { api, must, type ClusterLive, type Schemas } from '../api';
import type { Scope } from '../session';
import { Field, Notice, WriteButton } from '../ui/components';

export type Maintenance = Schemas['ClusterMaintenance'];
type Settings = Schemas['MaintenanceSettings'];
type Policy = Settings['upgrade']['auto_upgrade'];
type Span = { start: string; end: string };

const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
const POLICIES: [Policy, string][] = [
  ['none', 'No automatic upgrade'],
  ['latest_patch', 'The latest patch of the current minor'],
  ['template', 'A chosen template'],
];

/** The cluster's maintenance view, read again whenever the streamed cluster changes (an upgrade begins, ends). */
export function useMaintenance(c: ClusterLive): [Maintenance | undefined, (m: Maintenance) => void] {
  const [m, setM] = useState<Maintenance | undefined>();
  useEffect(() => {
    must(api.GET('/v1/clusters/{ident}/maintenance', { params: { path: { ident: c.uuid } } })).then(setM, () => undefined);
  }, [c.uuid, c.status, c.updated_at, c.coe_version]);
  return [m, setM];
}

const fmt = (iso: string, zone?: string) =>
  new Date(iso).toLocaleString(undefined, { ...(zone ? { timeZone: zone } : {}), weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
const spanText = (s: Span, zone?: string) => `${fmt(s.start, zone)} – ${fmt(s.end, zone)}`;

/** "Tue 1 Dec, 02:00 – 03:30 (UTC; 03:00 – 04:30 your time)". */
export const windowText = (s: Span, zone: string) => `${spanText(s, zone)} (${zone}; ${spanText(s)} your time)`;

/** What the window would run now (no final period). */
export const plannedText = (m: Maintenance) =>
  m.planned_upgrade
    ? `will upgrade to ${m.planned_upgrade.name} (${m.planned_upgrade.from} → ${m.planned_upgrade.to})`
    : `will run nothing: ${(m.nothing_planned ?? '').replace(/\.$/, '')}`;

/** The upgrade card's line: the next window and what it would run (undefined without a window). */
export function windowLine(m: Maintenance | undefined): string | undefined {
  if (!m?.settings || !m.next_window) return undefined;
  return `Next maintenance window: ${windowText(m.next_window, m.settings.window.timezone)} — ${plannedText(m)}`;
}

function lastText(r: NonNullable<Maintenance['last_run']>): string {
  const at = fmt(r.window_start);
  switch (r.outcome) {
    case 'started':
      return `The window of ${at} started the upgrade to ${r.upgrade?.name} (${r.upgrade?.from} → ${r.upgrade?.to}).`;
    case 'waiting':
      return `The window of ${at} is open and waits: ${r.reason}.`;
    case 'skipped':
      return `The window of ${at} was skipped: ${r.reason}.`;
    default:
      return `The window of ${at} ran nothing: ${r.reason}`;
  }
}

export function MaintenancePanel({ c, scope, m, onSaved }: { c: ClusterLive; scope: Scope; m: Maintenance; onSaved: (m: Maintenance) => void }) {
  const s = m.settings;
  const [day, setDay] = useState<string>(s?.window.day ?? 'sunday');
  const [start, setStart] = useState(s?.window.start ?? '02:00');
  const [duration, setDuration] = useState(String(s?.window.duration_minutes ?? 120));
  const [zone, setZone] = useState(s?.window.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone);
  const [policy, setPolicy] = useState<Policy>(s?.upgrade.auto_upgrade ?? 'latest_patch');
  const [template, setTemplate] = useState(s?.upgrade.cluster_template_id ?? '');
  const [targets, setTargets] = useState<{ uuid: string; name: string; kube_tag: string | null }[]>([]);
  const [msg, setMsg] = useState<{ kind: 'ok' | 'error'; text: string } | undefined>();
  useEffect(() => {
    if (policy !== 'template') return;
    must(api.GET('/v1/clusters/{ident}/upgrades', { params: { path: { ident: c.uuid } } })).then((u) => setTargets(u.targets.filter((t) => t.valid)), () => undefined);
  }, [policy, c.uuid, c.coe_version]);
  const ro = !scope.can_write;
  async function save(e: Event) {
    e.preventDefault();
    setMsg(undefined);
    try {
      const body: Settings = {
        window: { day: day as Settings['window']['day'], start, duration_minutes: Number(duration), timezone: zone.trim() },
        upgrade: { auto_upgrade: policy, cluster_template_id: policy === 'template' ? template || null : null },
      };
      onSaved(await must(api.PUT('/v1/clusters/{ident}/maintenance', { params: { path: { ident: c.uuid } }, body })));
      setMsg({ kind: 'ok', text: 'Maintenance window saved.' });
    } catch (err) {
      setMsg({ kind: 'error', text: (err as Error).message });
    }
  }
  async function remove() {
    setMsg(undefined);
    try {
      await must(api.DELETE('/v1/clusters/{ident}/maintenance', { params: { path: { ident: c.uuid } } }));
      onSaved({ ...m, settings: null, open_now: false, open_window: null, next_window: null, planned_upgrade: null, nothing_planned: 'No maintenance window is set.' });
      setMsg({ kind: 'ok', text: 'Maintenance window removed.' });
    } catch (err) {
      setMsg({ kind: 'error', text: (err as Error).message });
    }
  }
  const value = (set: (v: string) => void) => (e: Event) => set((e.target as HTMLInputElement).value);
  return (
    <div class="panel maintenance" id="maintenance">
      <h3>Maintenance window</h3>
      <p>Once a week, in its time zone: an upgrade chosen here begins in the window, through the same checks as the Upgrade button, when the cluster is not busy.</p>
      <form class="schedule-form" onSubmit={save} aria-label="Maintenance window">
        <Field id="maintenance-day" label="Day">
          <select id="maintenance-day" value={day} disabled={ro} onChange={value(setDay)}>
            {DAYS.map((d) => (
              <option key={d} value={d}>
                {d[0]!.toUpperCase() + d.slice(1)}
              </option>
            ))}
          </select>
        </Field>
        <Field id="maintenance-start" label="Starts at (HH:MM)">
          <input id="maintenance-start" type="time" value={start} disabled={ro} onInput={value(setStart)} />
        </Field>
        <Field id="maintenance-duration" label="Lasts (minutes, 30 to 1440)">
          <input id="maintenance-duration" type="number" min={30} max={1440} step={15} value={duration} disabled={ro} onInput={value(setDuration)} />
        </Field>
        <Field id="maintenance-zone" label="Time zone (IANA)">
          <input id="maintenance-zone" value={zone} autocomplete="off" spellcheck={false} disabled={ro} onInput={value(setZone)} />
        </Field>
        <Field id="maintenance-policy" label="Upgrade in the window">
          <select id="maintenance-policy" value={policy} disabled={ro} onChange={(e) => setPolicy((e.target as HTMLSelectElement).value as Policy)}>
            {POLICIES.map(([p, label]) => (
              <option key={p} value={p}>
                {label}
              </option>
            ))}
          </select>
        </Field>
        {policy === 'template' && (
          <Field id="maintenance-template" label="Template (a valid upgrade target)">
            <select id="maintenance-template" value={template} disabled={ro} onChange={value(setTemplate)}>
              <option value="">Choose a template</option>
              {targets.map((t) => (
                <option key={t.uuid} value={t.uuid}>
                  {t.name} — {t.kube_tag}
                </option>
              ))}
            </select>
          </Field>
        )}
        {s && m.next_window && (
          <p id="maintenance-next">
            {m.open_now && m.open_window ? `Open now, until ${fmt(m.open_window.end, s.window.timezone)} (${s.window.timezone}). ` : ''}
            Next window: {windowText(m.next_window, s.window.timezone)}. It {plannedText(m)}.
          </p>
        )}
        {m.last_run && <p id="maintenance-last">{lastText(m.last_run)}</p>}
        <div class="buttons">
          <WriteButton id="maintenance-save" type="submit" canWrite={scope.can_write}>
            Save window
          </WriteButton>
          {s && (
            <WriteButton id="maintenance-remove" class="secondary" canWrite={scope.can_write} onClick={remove}>
              Remove window
            </WriteButton>
          )}
        </div>
        {msg && <Notice kind={msg.kind}>{msg.text}</Notice>}
      </form>
      <p class="sub mono">PUT /v1/clusters/{c.uuid}/maintenance</p>
    </div>
  );
}
