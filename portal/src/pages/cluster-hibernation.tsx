// Hibernation on the cluster page (issue 28): the state (awake, hibernating, hibernated since, waking), what a
// hibernation frees on the compute hosts, and Hibernate / Wake with a confirmation, each with its API twin. The
// state is read again whenever the streamed cluster changes (its status or update time), so it follows the
// operation live. Its schedule: cluster-hibernation-schedule.tsx.
import { useEffect, useState } from 'preact/hooks';
import { api, must, named, type ClusterLive, type Schemas } from '../api';
import type { Scope } from '../session';
import { Badge, Dialog, fmtTime, mib, Notice, WriteButton } from '../ui/components';
import { ScheduleForm } from './cluster-hibernation-schedule';

type Hibernation = Schemas['ClusterHibernation'];

const WORDS: Record<Hibernation['state'], string> = {
  AWAKE: 'Awake',
  HIBERNATING: 'Hibernating: shelving its servers…',
  HIBERNATED: 'Hibernated',
  WAKING: 'Waking: unshelving its servers…',
};

export function HibernationPanel({ c, scope, busy }: { c: ClusterLive; scope: Scope; busy: boolean }) {
  const [h, setH] = useState<Hibernation | undefined>();
  const [confirm, setConfirm] = useState(false);
  const [msg, setMsg] = useState<{ kind: 'ok' | 'error'; text: string } | undefined>();
  useEffect(() => {
    must(api.GET('/v1/clusters/{ident}/hibernation', { params: { path: { ident: c.uuid } } })).then(setH, () => undefined);
  }, [c.uuid, c.status, c.updated_at]);
  if (!h) return null;
  const asleep = h.state === 'HIBERNATED';
  const action = asleep ? 'wake' : 'hibernate';
  // As the API's table: a settled cluster, or one whose update (a hibernation, a wake) failed.
  const settledOrFailed = (c.status.endsWith('_COMPLETE') && c.status !== 'DELETE_COMPLETE') || c.status === 'UPDATE_FAILED';
  const why = !scope.can_write ? undefined : busy ? 'Wait for the current operation to finish.' : !settledOrFailed ? `Not while the cluster is ${c.status.toLowerCase().replace(/_/g, ' ')}.` : undefined;
  const frees = h.frees ? `${h.frees.servers} server(s): ${h.frees.vcpus} vCPU and ${mib(h.frees.ram_mb)} of RAM off the compute hosts` : undefined;
  async function go() {
    setConfirm(false);
    setMsg(undefined);
    try {
      await must(api.POST(`/v1/clusters/{ident}/actions/${action}`, { params: { path: { ident: c.uuid } }, body: {} }));
      setMsg({ kind: 'ok', text: asleep ? `Waking ${c.name} accepted.` : `Hibernation of ${c.name} accepted.` });
    } catch (err) {
      setMsg({ kind: 'error', text: named((err as Error).message, new Map([[c.uuid, c.name]])) });
    }
  }
  return (
    <div class="panel" id="hibernation">
      <h3>Hibernation</h3>
      <p>
        <Badge status={h.state === 'HIBERNATING' || h.state === 'WAKING' ? 'IN_PROGRESS' : asleep ? 'HIBERNATED' : 'COMPLETE'} label={WORDS[h.state]} />
        {asleep && h.hibernated_at && <span class="sub"> since {fmtTime(h.hibernated_at)}</span>}
      </p>
      <p>
        {asleep
          ? 'Every server is shelved: no compute is used, its ports, volumes and etcd’s data are kept. Waking unshelves them and waits until every node is Ready.'
          : 'Hibernating shelves every server (workers first, then the control planes): its API stops answering until it is woken, its addresses and data stay.'}
        {frees && <> Frees {frees}.</>}
      </p>
      <WriteButton id="hibernation-action" canWrite={scope.can_write} reason={why} disabled={!!why} onClick={() => setConfirm(true)}>
        {asleep ? 'Wake…' : 'Hibernate…'}
      </WriteButton>
      {why && <span class="why">{why}</span>}
      {msg && <Notice kind={msg.kind}>{msg.text}</Notice>}
      <p class="sub mono">POST /v1/clusters/{c.uuid}/actions/{action}</p>
      <ScheduleForm c={c} h={h} scope={scope} onSaved={(saved) => setH(saved ?? { ...h, schedule: null, next: { hibernate: null, wake: null } })} />
      <Dialog title={asleep ? `Wake ${c.name}?` : `Hibernate ${c.name}?`} open={confirm} onClose={() => setConfirm(false)}>
        <p>{asleep ? 'Its servers are unshelved; the cluster is usable once every node is Ready.' : `Its API and workloads stop until it is woken.${frees ? ` It frees ${frees}.` : ''}`}</p>
        <div class="buttons">
          <button type="button" class="secondary" onClick={() => setConfirm(false)}>
            Cancel
          </button>
          <button type="button" id="hibernation-confirm" class={asleep ? '' : 'danger'} onClick={go}>
            {asleep ? 'Wake' : 'Hibernate'}
          </button>
        </div>
      </Dialog>
    </div>
  );
}
