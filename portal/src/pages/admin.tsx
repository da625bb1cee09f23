// Admin views: the service's processes (GET /v1/mservices) and every project's quotas. Every
// project's clusters are on the clusters page (an admin's list covers all projects).
import { useEffect, useState } from 'preact/hooks';
import { api, must, type Schemas } from '../api';
import { href } from '../router';
import { ago, Badge, Cli, Notice } from '../ui/components';

export function AdminPage({ project }: { project: string }) {
  const [services, setServices] = useState<Schemas['MService'][] | string | undefined>();
  const [quotas, setQuotas] = useState<Schemas['Quota'][] | string | undefined>();
  useEffect(() => {
    must(api.GET('/v1/mservices', {})).then((r) => setServices(r.mservices), (e: Error) => setServices(e.message));
    must(api.GET('/v1/quotas', { params: { query: { all_tenants: true } } })).then((r) => setQuotas(r.quotas), (e: Error) => setQuotas(e.message));
  }, [project]);
  return (
    <section aria-labelledby="admin-title">
      <h1 id="admin-title">Administration</h1>
      <p>
        Every project’s clusters are on the <a href={href(project, 'clusters')}>clusters page</a>, with their project.
      </p>
      <h2>Service processes</h2>
      <Cli cmd="openstack coe service list" />
      {typeof services === 'string' ? (
        <Notice kind="error">{services}</Notice>
      ) : !services ? (
        <p role="status">Loading…</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Binary</th>
              <th scope="col">Host</th>
              <th scope="col">State</th>
              <th scope="col">Reports</th>
              <th scope="col">Last seen</th>
            </tr>
          </thead>
          <tbody>
            {services.map((s) => (
              <tr key={s.id}>
                <th scope="row">{s.binary}</th>
                <td class="mono">{s.host}</td>
                <td>
                  <Badge status={s.state} />
                  {s.disabled && ` disabled: ${s.disabled_reason ?? ''}`}
                </td>
                <td>{s.report_count}</td>
                <td>{ago(s.updated_at ?? s.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Quotas of every project</h2>
      <Cli cmd="openstack coe quotas list" />
      {typeof quotas === 'string' ? (
        <Notice kind="error">{quotas}</Notice>
      ) : !quotas ? (
        <p role="status">Loading…</p>
      ) : quotas.length === 0 ? (
        <p class="empty">No project has a quota of its own: every project has the default.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Project</th>
              <th scope="col">Resource</th>
              <th scope="col">Hard limit</th>
            </tr>
          </thead>
          <tbody>
            {quotas.map((q) => (
              <tr key={`${q.project_id}:${q.resource}`}>
                <th scope="row" class="mono">
                  {q.project_id}
                </th>
                <td>{q.resource}</td>
                <td>{q.hard_limit}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
