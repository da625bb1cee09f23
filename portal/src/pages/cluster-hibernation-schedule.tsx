// The hibernation schedule's form on the cluster page: cron-like hibernate and wake times (either may be empty) in
// an IANA time zone (the browser's by default), saved with PUT …/hibernation/schedule; the service checks them and
// its refusal is shown at the form. Below, when each next fires.
import { useState } from 'preact/hooks';
import { api, must, type ClusterLive, type Schemas } from '../api';
import type { Scope } from '../session';
import { described, Field, fmtTime, Notice, WriteButton } from '../ui/components';

type Hibernation = Schemas['ClusterHibernation'];

export function ScheduleForm({ c, h, scope, onSaved }: { c: ClusterLive; h: Hibernation; scope: Scope; onSaved: (h: Hibernation | undefined) => void }) {
  const s = h.schedule;
  const [hibernate, setHibernate] = useState(s?.hibernate ?? '');
  const [wake, setWake] = useState(s?.wake ?? '');
  const [zone, setZone] = useState(s?.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone);
  const [msg, setMsg] = useState<{ kind: 'ok' | 'error'; text: string } | undefined>();
  const hint = 'Five cron fields: minute hour day-of-month month day-of-week, e.g. 0 19 * * 1-5.';
  async function save(e: Event) {
    e.preventDefault();
    setMsg(undefined);
    try {
      const body = { hibernate: hibernate.trim() || null, wake: wake.trim() || null, timezone: zone.trim() };
      onSaved(await must(api.PUT('/v1/clusters/{ident}/hibernation/schedule', { params: { path: { ident: c.uuid } }, body })));
      setMsg({ kind: 'ok', text: 'Schedule saved.' });
    } catch (err) {
      setMsg({ kind: 'error', text: (err as Error).message });
    }
  }
  async function remove() {
    setMsg(undefined);
    try {
      await must(api.DELETE('/v1/clusters/{ident}/hibernation/schedule', { params: { path: { ident: c.uuid } } }));
      setHibernate('');
      setWake('');
      onSaved(undefined);
      setMsg({ kind: 'ok', text: 'Schedule removed.' });
    } catch (err) {
      setMsg({ kind: 'error', text: (err as Error).message });
    }
  }
  const input = (id: string, value: string, set: (v: string) => void, withHint = true) => (
    <input id={id} value={value} autocomplete="off" spellcheck={false} disabled={!scope.can_write} aria-describedby={withHint ? described(id, undefined, hint) : undefined} onInput={(e) => set((e.target as HTMLInputElement).value)} />
  );
  return (
    <form class="schedule-form" onSubmit={save} aria-labelledby="schedule-title">
      <h4 id="schedule-title">Schedule</h4>
      <Field id="schedule-hibernate" label="Hibernate at (cron, empty: never)" hint={hint}>
        {input('schedule-hibernate', hibernate, setHibernate)}
      </Field>
      <Field id="schedule-wake" label="Wake at (cron, empty: never)" hint={hint}>
        {input('schedule-wake', wake, setWake)}
      </Field>
      <Field id="schedule-zone" label="Time zone (IANA)">
        {input('schedule-zone', zone, setZone, false)}
      </Field>
      {s && (
        <p id="schedule-next">
          Next: hibernate {h.next.hibernate ? fmtTime(h.next.hibernate) : 'not within a week'}; wake {h.next.wake ? fmtTime(h.next.wake) : 'not within a week'} ({s.timezone}).
        </p>
      )}
      <div class="buttons">
        <WriteButton id="schedule-save" type="submit" canWrite={scope.can_write}>
          Save schedule
        </WriteButton>
        {s && (
          <WriteButton id="schedule-remove" class="secondary" canWrite={scope.can_write} onClick={remove}>
            Remove schedule
          </WriteButton>
        )}
      </div>
      {msg && <Notice kind={msg.kind}>{msg.text}</Notice>}
    </form>
  );
}
