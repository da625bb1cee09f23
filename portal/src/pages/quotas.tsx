// Quotas and usage of the project: Magnum's cluster quota against the project's clusters and
// nodes (GET /v1/quotas, /v1/stats). What a change takes from every cloud quota is its bill, shown
// where the change is made (the create wizard, resize, node group, upgrade: ui/bill.tsx).
import { useEffect, useState } from 'preact/hooks';
import { api, must } from '../api';
import type { Scope } from '../session';
import { Cli, Notice } from '../ui/components';
import { shq } from '../ui/shell';

interface Usage {
  limit: number;
  clusters: number;
  nodes: number;
}

function useUsage(project: string): Usage | string | undefined {
  const [u, setU] = useState<Usage | string | undefined>();
  useEffect(() => {
    Promise.all([
      must(api.GET('/v1/quotas/{project_id}/{resource}', { params: { path: { project_id: project, resource: 'Cluster' } } })),
      must(api.GET('/v1/stats', { params: { query: { project_id: project } } })),
    ]).then(([q, s]) => setU({ limit: q.hard_limit, clusters: s.clusters, nodes: s.nodes }), (e: Error) => setU(e.message));
  }, [project]);
  return u;
}

/** Usage against the cluster quota; `adding` clusters more shows what a create would leave. */
export function QuotaPanel({ project, adding = 0 }: { project: string; adding?: number }) {
  const u = useUsage(project);
  if (u === undefined) return <p role="status">Loading quotas…</p>;
  if (typeof u === 'string') return <Notice kind="warn">Quotas could not be read: {u}</Notice>;
  const unlimited = u.limit < 0;
  const after = u.clusters + adding;
  const short = !unlimited && after > u.limit;
  return (
    <section class="quota-panel" aria-labelledby="quota-title">
      <h3 id="quota-title">Quotas and usage</h3>
      <table>
        <thead>
          <tr>
            <th scope="col">Quota</th>
            <th scope="col">Used</th>
            {adding > 0 && <th scope="col">After this create</th>}
            <th scope="col">Limit</th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <th scope="row">Clusters (Magnum)</th>
            <td>{u.clusters}</td>
            {adding > 0 && (
              <td>
                {after} {short ? <strong class="over">✕ over the quota</strong> : <span class="fits">✓ fits</span>}
              </td>
            )}
            <td>{unlimited ? 'unlimited' : u.limit}</td>
          </tr>
          <tr>
            <th scope="row">Nodes in clusters</th>
            <td>{u.nodes}</td>
            {adding > 0 && <td>—</td>}
            <td>the cloud’s instance quota</td>
          </tr>
        </tbody>
      </table>
      {!unlimited && (
        <meter min={0} max={Math.max(1, u.limit)} value={u.clusters} aria-label={`Clusters: ${u.clusters} of ${u.limit}`}>
          {u.clusters} of {u.limit}
        </meter>
      )}
      {short && <Notice kind="error">The project’s cluster quota ({u.limit}) is used up: the create would be refused.</Notice>}
    </section>
  );
}

export function QuotasPage({ project }: { project: string; scope: Scope }) {
  return (
    <section aria-labelledby="quotas-title">
      <h1 id="quotas-title">Quotas</h1>
      <QuotaPanel project={project} />
      <Cli cmd={`openstack coe quotas show --project-id ${shq(project)} --resource Cluster`} />
      <Cli cmd="openstack coe stats list" />
    </section>
  );
}
