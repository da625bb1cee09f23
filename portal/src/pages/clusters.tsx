// Clusters: every cluster of the project (all projects for an admin), live over SSE, with status,
// health and its check time, node counts, Kubernetes version, and each busy cluster's progress by
// condition. Filters and paging run on the client: the stream holds the whole list.
import { useEffect, useLayoutEffect, useMemo, useState } from 'preact/hooks';
import { allPages, type ClusterSummary } from '../api';
import { byText } from '../order';
import { href, navigate } from '../router';
import type { Scope } from '../session';
import { useClusterList, progressOf, CONDITION_NAMES } from '../live';
import { ago, Badge, Cli, WriteButton } from '../ui/components';

const PAGE = 50;
const STATES = [
  ['', 'Any status'],
  ['IN_PROGRESS', 'In progress'],
  ['COMPLETE', 'Complete'],
  ['FAILED', 'Failed'],
] as const;

export function ClustersPage({ project, scope }: { project: string; scope: Scope }) {
  const { clusters, live } = useClusterList(project);
  const [templates, setTemplates] = useState<Map<string, string>>(new Map());
  const [q, setQ] = useState('');
  const [status, setStatus] = useState('');
  const [health, setHealth] = useState('');
  const [sort, setSort] = useState<'name' | 'created' | 'status'>('created');
  const [page, setPage] = useState(0);

  // The templates' names once the clusters are in: the rows come first (a template shows its
  // uuid's start until then), the list of every template does not compete with them.
  const listed = clusters !== undefined;
  useLayoutEffect(() => {
    if (!listed) return;
    allPages<{ uuid: string; name: string }>('/v1/clustertemplates', 'clustertemplates').then(
      (list) => setTemplates(new Map(list.map((t) => [t.uuid, t.name]))),
      () => undefined,
    );
  }, [project, listed]);

  const rows = useMemo(() => {
    const all = [...(clusters?.values() ?? [])];
    const needle = q.trim().toLowerCase();
    const filtered = all.filter(
      (c) =>
        (!needle || c.name.toLowerCase().includes(needle) || c.uuid.startsWith(needle) || (scope.is_admin && c.project_id.startsWith(needle))) &&
        (!status || c.status.includes(status)) &&
        (!health || (c.health_status ?? 'NONE') === health),
    );
    // Creation times (all ISO, one format) compare as plain text; names and status words by the collator.
    const byCreated = (a: ClusterSummary, b: ClusterSummary) => {
      const x = a.created_at ?? '';
      const y = b.created_at ?? '';
      return x < y ? 1 : x > y ? -1 : 0;
    };
    filtered.sort(sort === 'name' ? (a, b) => byText(a.name, b.name) : sort === 'status' ? (a, b) => byText(a.status, b.status) : byCreated);
    return filtered;
  }, [clusters, q, status, health, sort]);
  useEffect(() => setPage(0), [q, status, health, sort]);
  const pages = Math.max(1, Math.ceil(rows.length / PAGE));
  const shown = rows.slice(page * PAGE, page * PAGE + PAGE);

  return (
    <section aria-labelledby="clusters-title">
      <div class="page-head">
        <h1 id="clusters-title">Clusters</h1>
        <span class={`live${live ? ' live-on' : ''}`} role="status">
          <span aria-hidden="true">{live ? '●' : '○'}</span> {live ? 'Live' : 'Connecting…'}
        </span>
        <WriteButton id="create-cluster" canWrite={scope.can_write} onClick={() => navigate(href(project, 'clusters', 'new'))}>
          Create cluster
        </WriteButton>
      </div>
      <Cli cmd="openstack coe cluster list" />
      <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label for="f-q">Filter</label>
        <input id="f-q" type="search" value={q} placeholder={scope.is_admin ? 'name, uuid or project' : 'name or uuid'} onInput={(e) => setQ((e.target as HTMLInputElement).value)} />
        <label for="f-status">Status</label>
        <select id="f-status" value={status} onChange={(e) => setStatus((e.target as HTMLSelectElement).value)}>
          {STATES.map(([v, l]) => (
            <option key={v} value={v}>
              {l}
            </option>
          ))}
        </select>
        <label for="f-health">Health</label>
        <select id="f-health" value={health} onChange={(e) => setHealth((e.target as HTMLSelectElement).value)}>
          <option value="">Any health</option>
          <option value="HEALTHY">Healthy</option>
          <option value="UNHEALTHY">Unhealthy</option>
          <option value="UNKNOWN">Unknown</option>
          <option value="NONE">Not checked</option>
        </select>
        <label for="f-sort">Sort by</label>
        <select id="f-sort" value={sort} onChange={(e) => setSort((e.target as HTMLSelectElement).value as never)}>
          <option value="created">Newest</option>
          <option value="name">Name</option>
          <option value="status">Status</option>
        </select>
      </form>
      {!clusters ? (
        <p role="status">Loading clusters…</p>
      ) : rows.length === 0 ? (
        <p class="empty">{clusters.size === 0 ? 'No clusters in this project yet.' : 'No cluster matches these filters.'}</p>
      ) : (
        <>
          <p class="count" role="status">
            {rows.length} of {clusters.size} cluster{clusters.size === 1 ? '' : 's'}
          </p>
          <div class="table-wrap">
            <table class="clusters">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  {scope.is_admin && <th scope="col">Project</th>}
                  <th scope="col">Status</th>
                  <th scope="col">Health</th>
                  <th scope="col">Nodes</th>
                  <th scope="col">Kubernetes</th>
                  <th scope="col">Template</th>
                </tr>
              </thead>
              <tbody>
                {shown.map((c) => (
                  <Row key={c.uuid} c={c} project={project} admin={scope.is_admin} template={templates.get(c.cluster_template_id)} />
                ))}
              </tbody>
            </table>
          </div>
          {pages > 1 && (
            <nav class="pager" aria-label="Pages">
              <button type="button" class="secondary" disabled={page === 0} onClick={() => setPage(page - 1)}>
                Previous
              </button>
              <span>
                Page {page + 1} of {pages}
              </span>
              <button type="button" class="secondary" disabled={page >= pages - 1} onClick={() => setPage(page + 1)}>
                Next
              </button>
            </nav>
          )}
        </>
      )}
    </section>
  );
}

function Row({ c, project, admin, template }: { c: ClusterSummary; project: string; admin: boolean; template: string | undefined }) {
  const busy = c.status.endsWith('IN_PROGRESS');
  const p = progressOf(c);
  return (
    <tr>
      <th scope="row">
        <a href={href(project, 'clusters', c.uuid)}>{c.name}</a>
      </th>
      {admin && <td class="mono">{c.project_id.slice(0, 8)}</td>}
      <td>
        <Badge status={c.status} />
        {busy && p.waiting && (
          <div class="progress-line">
            <progress max={p.total} value={p.done} aria-label={`${c.name}: ${p.done} of ${p.total} steps done`} />
            <span>
              {p.done}/{p.total} · {CONDITION_NAMES[p.waiting] ?? p.waiting}
            </span>
          </div>
        )}
        {c.status.endsWith('FAILED') && c.status_reason && <div class="reason">{c.status_reason}</div>}
      </td>
      <td>
        <Badge status={c.health_status ?? null} label={c.health_status ?? 'Not checked'} />
        <div class="sub">checked {ago(c.health_checked_at)}</div>
      </td>
      <td>
        {c.master_count} control plane{c.master_count === 1 ? '' : 's'}, {c.node_count} worker{c.node_count === 1 ? '' : 's'}
      </td>
      <td>{c.coe_version ?? c.labels.kube_tag ?? '—'}</td>
      <td>{template ?? c.cluster_template_id.slice(0, 8)}</td>
    </tr>
  );
}
