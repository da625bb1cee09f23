// Templates: the project's and the public ones, with their Kubernetes version, CNI and add-ons;
// create, edit and delete (public and hidden for admins); the label warnings of the last save.
import { useEffect, useState } from 'preact/hooks';
import { api, must, type ClusterTemplate } from '../api';
import { href, navigate } from '../router';
import type { Scope } from '../session';
import { Cli, Dialog, Notice, WriteButton } from '../ui/components';
import { addonsOf } from './create';

const FLASH = (project: string) => `flash:templates:${project}`;

/** Keeps the label warnings of a template just saved for the list it returns to (this tab only). */
export function flashWarnings(project: string, name: string, warnings: string[]): void {
  if (warnings.length > 0) sessionStorage.setItem(FLASH(project), JSON.stringify({ name, warnings }));
  else sessionStorage.removeItem(FLASH(project));
}

function takeFlash(project: string): { name: string; warnings: string[] } | undefined {
  const raw = sessionStorage.getItem(FLASH(project));
  sessionStorage.removeItem(FLASH(project));
  return raw ? (JSON.parse(raw) as { name: string; warnings: string[] }) : undefined;
}

export function TemplatesPage({ project, scope }: { project: string; scope: Scope }) {
  const [list, setList] = useState<ClusterTemplate[] | string | undefined>();
  const [flash] = useState(() => takeFlash(project));
  const [doomed, setDoomed] = useState<ClusterTemplate | undefined>();
  const [msg, setMsg] = useState<{ kind: 'ok' | 'error'; text: string } | undefined>();
  const load = () => must(api.GET('/v1/clustertemplates/detail', {})).then((r) => setList(r.clustertemplates as ClusterTemplate[]), (e: Error) => setList(e.message));
  useEffect(() => void load(), [project]);
  const mine = (t: ClusterTemplate) => scope.is_admin || t.project_id === project;
  async function remove(t: ClusterTemplate) {
    setDoomed(undefined);
    try {
      await must(api.DELETE('/v1/clustertemplates/{ident}', { params: { path: { ident: t.uuid } } }));
      setMsg({ kind: 'ok', text: `Template ${t.name} deleted.` });
      void load();
    } catch (e) {
      setMsg({ kind: 'error', text: (e as Error).message });
    }
  }
  return (
    <section aria-labelledby="templates-title">
      <div class="page-head">
        <h1 id="templates-title">Cluster templates</h1>
        <WriteButton id="create-template" canWrite={scope.can_write} onClick={() => navigate(href(project, 'templates', 'new'))}>
          Create template
        </WriteButton>
      </div>
      <Cli cmd="openstack coe cluster template list" />
      {msg && <Notice kind={msg.kind}>{msg.text}</Notice>}
      {flash && (
        <Notice kind="warn">
          Template {flash.name} saved, with label warnings:
          <ul class="warnings" aria-label={`Label warnings of ${flash.name}`}>
            {flash.warnings.map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
        </Notice>
      )}
      {typeof list === 'string' ? (
        <Notice kind="error">{list}</Notice>
      ) : !list ? (
        <p role="status">Loading templates…</p>
      ) : list.length === 0 ? (
        <p class="empty">No templates yet.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Kubernetes</th>
                <th scope="col">CNI</th>
                <th scope="col">Add-ons</th>
                <th scope="col">Image</th>
                <th scope="col">Visibility</th>
                <th scope="col">Change</th>
              </tr>
            </thead>
            <tbody>
              {list.map((t) => (
                <tr key={t.uuid}>
                  <th scope="row">{t.name}</th>
                  <td>{t.labels?.kube_tag ?? 'default'}</td>
                  <td>{t.network_driver ?? 'flannel'}</td>
                  <td>{addonsOf(t).join(', ') || 'defaults'}</td>
                  <td>{t.image_id}</td>
                  <td>
                    {t.public ? 'public' : 'project'}
                    {t.hidden ? ', hidden' : ''}
                  </td>
                  <td class="change">
                    <WriteButton id={`edit-${t.name}`} canWrite={scope.can_write && mine(t)} reason={scope.can_write && !mine(t) ? 'A public template of another project: only an admin changes it.' : undefined} class="secondary" onClick={() => navigate(href(project, 'templates', t.uuid, 'edit'))}>
                      Edit
                    </WriteButton>
                    <WriteButton id={`delete-${t.name}`} canWrite={scope.can_write && mine(t)} reason={scope.can_write && !mine(t) ? 'A public template of another project: only an admin deletes it.' : undefined} class="danger" onClick={() => setDoomed(t)}>
                      Delete
                    </WriteButton>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Dialog title={`Delete template ${doomed?.name ?? ''}?`} open={!!doomed} onClose={() => setDoomed(undefined)}>
        <p>A template that clusters still use cannot be deleted.</p>
        {doomed && <Cli cmd={`openstack coe cluster template delete ${doomed.name}`} />}
        <div class="buttons">
          <button type="button" class="secondary" onClick={() => setDoomed(undefined)}>
            Cancel
          </button>
          <button type="button" class="danger" onClick={() => doomed && remove(doomed)}>
            Delete
          </button>
        </div>
      </Dialog>
    </section>
  );
}
