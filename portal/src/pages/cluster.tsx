// One cluster, live over SSE: addresses, conditions as a step list, node groups, the event
// timeline, and its actions (kubeconfig, upgrade, maintenance window, CA rotation, hibernation, delete), each with
// its CLI or API twin.
import { useEffect, useState } from 'preact/hooks';
import { api, must, type ClusterLive } from '../api';
import { CONDITION_NAMES, CONDITION_ORDER, useCluster, type TimelineEvent } from '../live';
import { DEFAULT_KUBE_VERSION } from '../kube-version';
import { href } from '../router';
import type { Scope } from '../session';
import { ago, Badge, Cli, fmtTime, Notice } from '../ui/components';
import { NodeGroups } from './cluster-nodegroups';
import { healthText } from '../ui/health-text';
import { troubleOf } from '../ui/step-trouble';
import { DeletePanel, KubeconfigPanel, RotateCaPanel, UpgradePanel } from './cluster-actions';
import { HibernationPanel } from './cluster-hibernation';
import { MaintenancePanel, useMaintenance } from './cluster-maintenance';
import { shq } from '../ui/shell';

export function ClusterPage({ project, id, scope, user }: { project: string; id: string; scope: Scope; user: string }) {
  const live = useCluster(project, id);
  const [template, setTemplate] = useState<string | undefined>();
  const c = live.cluster;
  useEffect(() => {
    if (!c) return;
    must(api.GET('/v1/clustertemplates/{ident}', { params: { path: { ident: c.cluster_template_id } } })).then((t) => setTemplate(t.name), () => setTemplate(undefined));
  }, [c?.cluster_template_id]);

  if (live.deleted) {
    return (
      <section>
        <h1>Cluster deleted</h1>
        <Notice kind="ok">The cluster is gone, with everything the preview listed for deletion.</Notice>
        <p>
          <a href={href(project, 'clusters')}>Back to the clusters</a>
        </p>
      </section>
    );
  }
  if (live.missing) {
    return (
      <section>
        <h1>Cluster not found</h1>
        <p>No cluster {id} in this project.</p>
      </section>
    );
  }
  if (!c) return <p role="status">Loading the cluster…</p>;
  const busy = c.status.endsWith('IN_PROGRESS');
  return (
    <article aria-labelledby="cluster-title">
      <div class="page-head">
        <h1 id="cluster-title" class="name">
          {c.name}
        </h1>
        <Badge status={c.status} />
        <span class="kube-chip" id="cluster-kube">
          Kubernetes {c.coe_version ?? c.labels.kube_tag ?? DEFAULT_KUBE_VERSION}
        </span>
        <span class={`live${live.live ? ' live-on' : ''}`} role="status">
          <span aria-hidden="true">{live.live ? '●' : '○'}</span> {live.live ? 'Live' : 'Reconnecting…'}
        </span>
      </div>
      <Cli cmd={`openstack coe cluster show ${shq(c.name)}`} />
      {c.status_reason && <Notice kind={c.status.endsWith('FAILED') ? 'error' : 'info'}>{c.status_reason}</Notice>}
      <Overview c={c} template={template} />
      <section aria-labelledby="steps-title">
        <h2 id="steps-title">Progress</h2>
        <Steps c={c} busy={busy} />
      </section>
      <NodeGroups c={c} scope={scope} busy={busy} />
      <section aria-labelledby="actions-title" class="actions">
        <h2 id="actions-title">Actions</h2>
        <KubeconfigPanel c={c} user={user} scope={scope} />
        <Maintained c={c} scope={scope} busy={busy} />
        <RotateCaPanel c={c} scope={scope} busy={busy} />
        <HibernationPanel c={c} scope={scope} busy={busy} />
        <DeletePanel c={c} scope={scope} />
      </section>
      <Timeline events={live.events} />
    </article>
  );
}

/** The upgrade card and the maintenance window, which share the window's view (the card shows the next one). */
function Maintained({ c, scope, busy }: { c: ClusterLive; scope: Scope; busy: boolean }) {
  const [m, setM] = useMaintenance(c);
  return (
    <>
      <UpgradePanel c={c} scope={scope} busy={busy} maintenance={m} />
      {m && <MaintenancePanel c={c} scope={scope} m={m} onSaved={setM} />}
    </>
  );
}

function Overview({ c, template }: { c: ClusterLive; template: string | undefined }) {
  const masters = c.nodegroups.filter((g) => g.role === 'master').flatMap((g) => g.node_addresses);
  const workers = c.nodegroups.filter((g) => g.role !== 'master').flatMap((g) => g.node_addresses);
  return (
    <dl class="facts">
      <dt>UUID</dt>
      <dd class="mono">{c.uuid}</dd>
      <dt>API address</dt>
      <dd class="mono">{c.api_address ?? 'not yet'}</dd>
      <dt>Kubernetes</dt>
      <dd>{c.coe_version ?? c.labels.kube_tag ?? '—'}</dd>
      <dt>Template</dt>
      <dd>{template ?? c.cluster_template_id}</dd>
      <dt>Health</dt>
      <dd>
        <Badge status={c.health_status} label={c.health_status ?? 'Not checked'} /> <span class="sub">checked {ago(c.health_checked_at)}</span>
      </dd>
      <dt>Keypair</dt>
      <dd>{c.keypair ?? 'none'}</dd>
      <dt>Control plane addresses</dt>
      <dd class="mono">{masters.join(', ') || '—'}</dd>
      <dt>Worker addresses</dt>
      <dd class="mono">{workers.join(', ') || '—'}</dd>
      <dt>Created</dt>
      <dd>{fmtTime(c.created_at)}</dd>
      <dt>Labels</dt>
      <dd>
        <Labels labels={c.labels} />
      </dd>
    </dl>
  );
}

/** The cluster's labels (its template's, merged with its own), one per line. */
function Labels({ labels }: { labels: Record<string, string> }) {
  const entries = Object.entries(labels).sort(([a], [b]) => a.localeCompare(b));
  if (entries.length === 0) return <span>none</span>;
  return (
    <details class="cluster-labels">
      <summary>
        {entries.length} label{entries.length === 1 ? '' : 's'}
      </summary>
      <ul aria-label="Labels of the cluster">
        {entries.map(([k, v]) => (
          <li key={k} class="mono">
            {k}={v}
          </li>
        ))}
      </ul>
    </details>
  );
}

function Steps({ c, busy }: { c: ClusterLive; busy: boolean }) {
  const keys = [...CONDITION_ORDER.filter((k) => c.conditions[k]), ...(c.conditions.health ? ['health'] : [])];
  const firstOpen = keys.find((k) => k !== 'health' && c.conditions[k]!.status !== 'True');
  const changedAt = keys.filter((k) => k !== 'health').map((k) => c.conditions[k]!.since).sort().at(-1);
  return (
    <ol class="steps">
      {keys.map((k) => {
        const cond = c.conditions[k]!;
        // A step retrying after a cloud error says so (the call, the answer, the tries, the next one: its message), live.
        // So does a server in ERROR, a load balancer stuck PENDING_*, a node that never joined (ui/step-trouble.ts).
        const trouble = cond.status === 'Unknown' ? troubleOf(cond.reason) : undefined;
        const state = cond.status === 'True' ? 'done' : cond.status === 'False' ? 'failed' : trouble ? 'retrying' : busy && k === firstOpen ? 'running' : 'waiting';
        const word = { done: 'Done', failed: 'Failed', retrying: trouble ?? '', running: 'Running', waiting: 'Waiting' }[state];
        return (
          <li key={k} class={`step step-${state}`}>
            <span class="step-icon" aria-hidden="true">
              {{ done: '✓', failed: '✕', retrying: '⚠', running: '◌', waiting: '○' }[state]}
            </span>
            <span class="step-name">{CONDITION_NAMES[k] ?? k}</span>
            <span class="step-state">{word}</span>
            <span class="step-reason mono">{cond.reason}</span>
            <span class="step-message">{k === 'health' ? healthText(cond, c.servers.flatMap((s) => (s.name ? [s.name] : [])), changedAt, busy) : cond.message}</span>
            <span class="sub">since {fmtTime(cond.since)}</span>
          </li>
        );
      })}
    </ol>
  );
}

function Timeline({ events }: { events: TimelineEvent[] }) {
  const shown = [...events].reverse().slice(0, 200);
  return (
    <section aria-labelledby="timeline-title">
      <h2 id="timeline-title">Events</h2>
      {shown.length === 0 ? (
        <p class="empty">No events yet.</p>
      ) : (
        <ol class="timeline" tabIndex={0} aria-label="Event timeline, newest first" aria-live="polite" aria-relevant="additions">
          {shown.map((e) => (
            <li key={e.id} class={`event event-${e.severity}`}>
              <time dateTime={e.at}>{fmtTime(e.at)}</time>
              <span class="sev">{e.severity}</span>
              <span class="mono">{e.type}</span>
              <strong>{e.reason}</strong>
              <span>{e.message}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
