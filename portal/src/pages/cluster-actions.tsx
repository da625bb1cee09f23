// A cluster's actions: kubeconfig in one click (key made here), the upgrade planner (valid
// targets only, the order of the roll, its bill at its peak: a shortage blocks it; the next maintenance window and
// what it would run), CA rotation, and the delete with its preview and
// type-the-name confirmation. Each shows its `openstack coe` twin.
import { useEffect, useState } from 'preact/hooks';
import { api, must, named, type ClusterLive, type Schemas } from '../api';
import { certificateExpiry, download, kubeconfig, makeCsr } from '../kubeconfig';
import type { Scope } from '../session';
import { BillPanel, blockedBy, refusalOf, useDryRun } from '../ui/bill';
import { AcceptedNote, useAccepted } from '../ui/accepted';
import { Cli, Dialog, Field, fmtTime, Notice, WriteButton } from '../ui/components';
import { shq, shqOr } from '../ui/shell';
import { windowLine, type Maintenance } from './cluster-maintenance';

/** A kubeconfig is signed whenever the cluster has an API that answers: complete, or updating (a resize, an upgrade, a node group), not while it is made or deleted. */
const SIGNABLE = /^(CREATE_COMPLETE|UPDATE_COMPLETE|UPDATE_IN_PROGRESS|UPDATE_FAILED|RESUME_COMPLETE|RESTORE_COMPLETE|SNAPSHOT_COMPLETE|CHECK_COMPLETE|ROLLBACK_COMPLETE|ADOPT_COMPLETE)$/;

type KubeconfigState = { kind: 'idle' | 'busy' } | { kind: 'done'; made: 'identity' | 'certificate'; expires: Date | undefined; file: string; ca?: string } | { kind: 'error'; text: string };

export function KubeconfigPanel({ c, user, scope }: { c: ClusterLive; user: string; scope: Scope }) {
  const [state, setState] = useState<KubeconfigState>({ kind: 'idle' });
  /** The identity kubeconfig: no credential in it, the user's Keystone identity through client-keystone-auth; readers too. */
  async function identity() {
    setState({ kind: 'busy' });
    try {
      const got = await must(api.GET('/v1/clusters/{ident}/kubeconfig', { params: { path: { ident: c.uuid } } }));
      const file = `${c.name}.kubeconfig`;
      download(file, got.kubeconfig);
      setState({ kind: 'done', made: 'identity', expires: undefined, file });
    } catch (e) {
      setState({ kind: 'error', text: (e as Error).message });
    }
  }
  async function go() {
    setState({ kind: 'busy' });
    try {
      const { csr, keyPem } = await makeCsr(user);
      const ca = await must(api.GET('/v1/certificates/{ident}', { params: { path: { ident: c.uuid } } }));
      const signed = await must(api.POST('/v1/certificates', { body: { cluster_uuid: c.uuid, csr } }));
      const file = `${c.name}.kubeconfig`;
      download(file, kubeconfig({ cluster: c.name, server: c.api_address!, caPem: ca.pem, certPem: signed.pem, keyPem, user }));
      setState({ kind: 'done', made: 'certificate', expires: certificateExpiry(signed.pem), file, ca: ca.pem });
    } catch (e) {
      setState({ kind: 'error', text: (e as Error).message });
    }
  }
  const ready = !!c.api_address && SIGNABLE.test(c.status);
  const caNow = useCurrentCa(c, state.kind === 'done' && state.made === 'certificate');
  const caChanged = state.kind === 'done' && state.ca !== undefined && caNow !== undefined && caNow !== state.ca;
  return (
    <div class="panel">
      <h3>Kubeconfig</h3>
      <p>
        The identity kubeconfig signs in as you: <code>client-keystone-auth</code> asks Keystone for your token, and what you may do in
        the cluster follows your roles in this project. It holds no secret and does not expire.
      </p>
      <button id="kubeconfig-identity" type="button" disabled={!ready || state.kind === 'busy'} onClick={identity}>
        Download identity kubeconfig
      </button>
      <p>
        The certificate kubeconfig is cluster-admin (<code>system:masters</code>) until its certificate expires. A key pair is made in
        this browser; only its certificate request goes to the service. The private key never leaves this page.
      </p>
      <WriteButton id="kubeconfig" canWrite={scope.can_write} reason={!scope.can_write ? 'Signing a certificate needs the member role.' : undefined} disabled={!ready || state.kind === 'busy'} onClick={go}>
        {state.kind === 'busy' ? 'Working…' : 'Download certificate kubeconfig'}
      </WriteButton>
      {!ready && <span class="why">{c.api_address ? `Not while the cluster is ${c.status.toLowerCase().replace(/_/g, ' ')}.` : 'Available once the cluster has an API address.'}</span>}
      {ready && c.status === 'UPDATE_IN_PROGRESS' && <span class="sub">The cluster is updating; its API keeps answering.</span>}
      {state.kind === 'done' && caChanged && (
        <Notice kind="warn">
          <span id="kubeconfig-stale">{`${state.file} no longer works: the cluster’s CA was rotated after it was signed. Download a new one.`}</span>
        </Notice>
      )}
      {state.kind === 'done' && !caChanged && (
        <Notice kind="ok">
          {state.made === 'identity'
            ? `Saved ${state.file}: an identity kubeconfig (client-keystone-auth), which does not expire.`
            : `Saved ${state.file}: a certificate kubeconfig. Its certificate expires ${state.expires ? fmtTime(state.expires.toISOString()) : 'at an unknown date'}.`}
        </Notice>
      )}
      {state.kind === 'error' && <Notice kind="error">{state.text}</Notice>}
      <Cli cmd={`openstack coe cluster config ${shq(c.name)}`} />
    </div>
  );
}

/** The cluster's CA now, read again whenever the live cluster changes (a CA rotation replaces it), while `watch`. */
function useCurrentCa(c: ClusterLive, watch: boolean): string | undefined {
  const [pem, setPem] = useState<string | undefined>();
  useEffect(() => {
    if (!watch) return;
    let live = true;
    must(api.GET('/v1/certificates/{ident}', { params: { path: { ident: c.uuid } } })).then((ca) => live && setPem(ca.pem), () => undefined);
    return () => {
      live = false;
    };
  }, [c.uuid, c.status, c.updated_at, watch]);
  return pem;
}

type Upgrades = Schemas['ClusterUpgrades'];

export function UpgradePanel({ c, scope, busy, maintenance }: { c: ClusterLive; scope: Scope; busy: boolean; maintenance: Maintenance | undefined }) {
  const nextWindow = windowLine(maintenance);
  const [plan, setPlan] = useState<Upgrades | undefined>();
  const [target, setTarget] = useState('');
  const [msg, setMsg] = useState<{ kind: 'error'; text: string } | undefined>();
  const progress = useAccepted(c.status);
  const [confirm, setConfirm] = useState(false);
  useEffect(() => {
    must(api.GET('/v1/clusters/{ident}/upgrades', { params: { path: { ident: c.uuid } } })).then(setPlan, () => undefined);
  }, [c.uuid, c.coe_version, c.cluster_template_id, c.nodegroups.map((g) => `${g.uuid}:${g.node_count}`).join()]);
  const valid = plan?.targets.filter((t) => t.valid) ?? [];
  const refused = plan?.targets.filter((t) => !t.valid) ?? [];
  const chosen = valid.find((t) => t.uuid === target);
  const body = { cluster_template: target, max_batch_size: plan?.max_batch_size ?? 1 };
  const bill = useDryRun(chosen && scope.can_write && !busy ? () => must(api.POST('/v1/dry-run/clusters/{ident}/actions/upgrade', { params: { path: { ident: c.uuid } }, body })) : undefined, JSON.stringify(body));
  // A shortage or another refusal of the dry-run disables Upgrade, naming why.
  const blocked = chosen ? (blockedBy(bill.answer) ?? refusalOf(bill.answer)) : undefined;
  const names = new Map([[c.uuid, c.name], ...(plan?.targets ?? []).map((t) => [t.uuid, t.name] as [string, string])]);
  async function go() {
    setConfirm(false);
    setMsg(undefined);
    try {
      await must(api.POST('/v1/clusters/{ident}/actions/upgrade', { params: { path: { ident: c.uuid } }, body }));
      progress.accept(`upgrade of ${c.name} to ${chosen?.name}`);
    } catch (err) {
      setMsg({ kind: 'error', text: named((err as Error).message, names) });
    }
  }
  return (
    <div class="panel">
      <h3>Upgrade</h3>
      <p>
        Running {plan?.current_version ?? c.coe_version ?? '—'}. Kubernetes upgrades one minor at a time and never goes down.
      </p>
      {nextWindow && <p id="upgrade-next-window">{nextWindow}.</p>}
      {valid.length === 0 ? (
        <p class="empty">No template offers a valid upgrade.</p>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (chosen) setConfirm(true);
          }}
          class="inline-form"
        >
          <label for="upgrade-target">Target template</label>
          <select id="upgrade-target" value={target} disabled={!scope.can_write || busy} onChange={(e) => setTarget((e.target as HTMLSelectElement).value)}>
            <option value="">Choose a template</option>
            {valid.map((t) => (
              <option key={t.uuid} value={t.uuid}>
                {t.name} — {t.kube_tag} ({t.kind === 'minor' ? 'next minor' : 'patch'})
              </option>
            ))}
          </select>
          <WriteButton id="upgrade" canWrite={scope.can_write} reason={!scope.can_write ? undefined : busy ? 'Wait for the current operation to finish.' : blocked} disabled={!chosen || busy || !!blocked || bill.loading} type="submit">
            Upgrade
          </WriteButton>
        </form>
      )}
      {chosen && !busy && scope.can_write && <BillPanel id="upgrade-bill" title="While it rolls, the upgrade takes at most" what="upgrade" state={bill} />}
      {plan && (
        <>
          <h4>What rolls, in order</h4>
          <ol class="plan">
            {plan.plan.map((p) => (
              <li key={p.nodegroup}>
                <strong>{p.nodegroup}</strong> ({p.nodes} {p.role === 'master' ? 'control plane' : 'worker'} node{p.nodes === 1 ? '' : 's'}): {p.when}
              </li>
            ))}
          </ol>
          <p class="sub">
            Surge {plan.surge}: a new node joins and is Ready before an old one is drained and deleted; {plan.max_batch_size} node at a time.
          </p>
          {refused.length > 0 && (
            <details>
              <summary>Templates that are not valid targets ({refused.length})</summary>
              <ul>
                {refused.map((t) => (
                  <li key={t.uuid}>
                    {t.name} ({t.kube_tag ?? 'no kube_tag'}): {t.reason}
                  </li>
                ))}
              </ul>
            </details>
          )}
        </>
      )}
      <AcceptedNote accepted={progress.accepted} status={c.status} reason={c.status_reason} />
      {msg && <Notice kind={msg.kind}>{msg.text}</Notice>}
      <Cli cmd={`openstack coe cluster upgrade ${shq(c.name)} ${shqOr(chosen?.name, 'template')}`} />
      <Dialog title={`Upgrade ${c.name} to ${chosen?.name ?? ''}?`} open={confirm && !!chosen} onClose={() => setConfirm(false)}>
        <p>
          Kubernetes {plan?.current_version ?? c.coe_version ?? ''} → {chosen?.kube_tag}. Every node is replaced in turn ({plan?.plan.map((p) => `${p.nodegroup}: ${p.nodes}`).join(', then ')}); it cannot be undone: Kubernetes never goes down a version.
        </p>
        <div class="buttons">
          <button type="button" class="secondary" onClick={() => setConfirm(false)}>
            Cancel
          </button>
          <button type="button" class="danger" onClick={go}>
            Upgrade {c.name}
          </button>
        </div>
      </Dialog>
    </div>
  );
}

export function RotateCaPanel({ c, scope, busy }: { c: ClusterLive; scope: Scope; busy: boolean }) {
  const [msg, setMsg] = useState<{ kind: 'error'; text: string } | undefined>();
  const progress = useAccepted(c.status);
  const [confirm, setConfirm] = useState(false);
  const order = [...c.nodegroups.filter((g) => g.role === 'master'), ...c.nodegroups.filter((g) => g.role !== 'master')];
  async function go() {
    setConfirm(false);
    try {
      await must(api.PATCH('/v1/certificates/{ident}', { params: { path: { ident: c.uuid } } } as never));
      progress.accept(`CA rotation of ${c.name}`);
    } catch (e) {
      setMsg({ kind: 'error', text: named((e as Error).message, new Map([[c.uuid, c.name]])) });
    }
  }
  return (
    <div class="panel">
      <h3>Rotate the CA</h3>
      <p>A new cluster CA; every node is replaced in turn: {order.map((g) => `${g.name} (${g.node_count})`).join(', then ')}. Surge 1, one node at a time. Kubeconfigs signed by the old CA stop working.</p>
      <WriteButton id="rotate-ca" canWrite={scope.can_write} reason={!scope.can_write ? undefined : busy ? 'Wait for the current operation to finish.' : undefined} disabled={busy} onClick={() => setConfirm(true)}>
        Rotate CA
      </WriteButton>
      <AcceptedNote accepted={progress.accepted} status={c.status} reason={c.status_reason} />
      {msg && <Notice kind={msg.kind}>{msg.text}</Notice>}
      <Cli cmd={`openstack coe ca rotate ${shq(c.name)}`} />
      <Dialog title={`Rotate the CA of ${c.name}?`} open={confirm} onClose={() => setConfirm(false)}>
        <p>Every node is replaced and existing kubeconfigs stop working.</p>
        <div class="buttons">
          <button type="button" class="secondary" onClick={() => setConfirm(false)}>
            Cancel
          </button>
          <button type="button" class="danger" onClick={go}>
            Rotate CA
          </button>
        </div>
      </Dialog>
    </div>
  );
}

type Resources = Schemas['ClusterResources'];

export function DeletePanel({ c, scope }: { c: ClusterLive; scope: Scope }) {
  const [open, setOpen] = useState(false);
  return (
    <div class="panel">
      <h3>Delete</h3>
      <p>Shows everything that goes, and what is kept, before anything happens.</p>
      <WriteButton id="delete-cluster" class="danger" canWrite={scope.can_write} disabled={c.status === 'DELETE_IN_PROGRESS'} onClick={() => setOpen(true)}>
        {c.status === 'DELETE_IN_PROGRESS' ? 'Deleting…' : 'Delete cluster…'}
      </WriteButton>
      <Cli cmd={`openstack coe cluster delete ${shq(c.name)}`} />
      <Dialog title={`Delete ${c.name}?`} open={open} onClose={() => setOpen(false)}>
        <DeletePreview c={c} onDone={() => setOpen(false)} />
      </Dialog>
    </div>
  );
}

function DeletePreview({ c, onDone }: { c: ClusterLive; onDone: () => void }) {
  const [res, setRes] = useState<Resources | undefined>();
  const [typed, setTyped] = useState('');
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    must(api.GET('/v1/clusters/{ident}/resources', { params: { path: { ident: c.uuid } } })).then(setRes, (e: Error) => setError(e.message));
  }, [c.uuid]);
  const gone = res?.resources.filter((r) => r.action === 'delete') ?? [];
  const kept = res?.resources.filter((r) => r.action === 'keep') ?? [];
  async function go(e: Event) {
    e.preventDefault();
    try {
      await must(api.DELETE('/v1/clusters/{ident}', { params: { path: { ident: c.uuid } } }));
      onDone();
    } catch (err) {
      setError(named((err as Error).message, new Map([[c.uuid, c.name]])));
    }
  }
  const list = (items: Resources['resources'], label: string) => (
    <ul class="resources" tabIndex={0} aria-label={label}>
      {items.map((r) => (
        <li key={`${r.type}:${r.id}`}>
          <span class="mono">{r.type.replace(/_/g, ' ')}</span> {r.name ?? r.id}
          {r.note && <span class="sub"> — {r.note}</span>}
        </li>
      ))}
    </ul>
  );
  return (
    <form onSubmit={go}>
      {!res && !error && <p role="status">Listing the cluster’s resources…</p>}
      {res && (
        <>
          <h3>Will be deleted ({gone.length})</h3>
          {gone.length ? list(gone, 'Resources the delete removes') : <p class="empty">Nothing recorded.</p>}
          <h3>Will be kept ({kept.length})</h3>
          {kept.length ? list(kept, 'Resources the delete keeps') : <p class="empty">Nothing.</p>}
          {res.unreachable.length > 0 && <Notice kind="warn">Not asked (did not answer): {res.unreachable.join(', ')}. Their resources may be missing from this list.</Notice>}
        </>
      )}
      <Field id="confirm-name" label={`Type the cluster’s name (${c.name}) to confirm`}>
        <input id="confirm-name" value={typed} autocomplete="off" onInput={(e) => setTyped((e.target as HTMLInputElement).value)} />
      </Field>
      {error && <Notice kind="error">{error}</Notice>}
      <div class="buttons">
        <button type="button" class="secondary" onClick={onDone}>
          Cancel
        </button>
        <button type="submit" class="danger" disabled={typed !== c.name || !res}>
          Delete {c.name}
        </button>
      </div>
    </form>
  );
}
