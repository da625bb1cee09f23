// Templates: the project's and the public ones, every page of them (the API's `next` links), with
// the Kubernetes version each runs (and an image that disagrees), CNI, add-ons and how many clusters
// use it (live); filter, sort and paging (a page of 50 rows drawn); create, edit, copy and delete
// (public and hidden for admins); the label warnings of the last save. A template in use names its
// clusters and offers a copy.
import { useEffect, useLayoutEffect, useMemo, useState } from 'preact/hooks';
import { allPages, api, must, named, type ClusterSummary, type ClusterTemplate } from '../api';
import { useClusterList } from '../live';
import { useChoices, type Choices } from '../choices';
import { kubeVersionOf, mismatchText, versionText, type KubeVersion } from '../kube-version';
import { byText, versionKey } from '../order';
import { href, navigate } from '../router';
import type { Scope } from '../session';
import { Cli, Dialog, Notice, Pager, WriteButton } from '../ui/components';
import { shq } from '../ui/shell';
import { addonsOf } from './create';

const PAGE = 50;

/**
 * The label warnings of a template just saved, by project, for the list the form returns to: in
 * this tab's memory (the form navigates within the page), so the list never waits on a storage
 * read when it loads.
 */
const flashes = new Map<string, { name: string; warnings: string[] }>();

export function flashWarnings(project: string, name: string, warnings: string[]): void {
  if (warnings.length > 0) flashes.set(project, { name, warnings });
  else flashes.delete(project);
}

function takeFlash(project: string): { name: string; warnings: string[] } | undefined {
  const f = flashes.get(project);
  flashes.delete(project);
  return f;
}

type Cl = Pick<ClusterSummary, 'uuid' | 'name' | 'cluster_template_id'>;

interface Derived {
  t: ClusterTemplate;
  k: KubeVersion;
  /** The version's sort key (versionKey). */
  vkey: string;
  /** What the filter matches: name and image (lower case), version, CNI. */
  text: string[];
}

function derive(t: ClusterTemplate, choices: Choices | undefined): Derived {
  const k = kubeVersionOf(t, choices?.images);
  return { t, k, vkey: versionKey(k.version), text: [t.name.toLowerCase(), k.version, (t.image_id ?? '').toLowerCase(), t.network_driver ?? ''] };
}

/**
 * The project's clusters (every project's for an admin, as GET /v1/clusters) by the template they
 * use, by name, live: from the clusters stream's snapshot (one aggregated read on the server, not a
 * thousand clusters serialised with their node groups page after page) and its changes.
 */
export function useClustersByTemplate(project: string, when = true): Map<string, Cl[]> | undefined {
  const { clusters } = useClusterList(project, when);
  return useMemo(() => {
    if (!clusters) return undefined;
    const by = new Map<string, Cl[]>();
    for (const c of clusters.values()) {
      const list = by.get(c.cluster_template_id);
      if (list) list.push(c);
      else by.set(c.cluster_template_id, [c]);
    }
    for (const list of by.values()) list.sort((a, b) => byText(a.name, b.name));
    return by;
  }, [clusters]);
}

export function TemplatesPage({ project, scope }: { project: string; scope: Scope }) {
  const [list, setList] = useState<ClusterTemplate[] | string | undefined>();
  const [flash] = useState(() => takeFlash(project));
  const [doomed, setDoomed] = useState<ClusterTemplate | undefined>();
  const [msg, setMsg] = useState<{ kind: 'ok' | 'error'; text: string } | undefined>();
  const [q, setQ] = useState('');
  const [sort, setSort] = useState<'name' | 'version' | 'used'>('name');
  const [page, setPage] = useState(0);
  // The templates first (the rows and the count); then the images (for versions they contradict)
  // and the clusters using each, which would otherwise compete with the list for the server.
  const listed = list !== undefined;
  const choices = useChoices(project, listed);
  const usedBy = useClustersByTemplate(project, listed);
  const load = () => allPages<ClusterTemplate>('/v1/clustertemplates/detail', 'clustertemplates').then(setList, (e: Error) => setList(e.message));
  useLayoutEffect(() => void load(), [project]);
  const mine = (t: ClusterTemplate) => scope.is_admin || t.project_id === project;
  const users = (t: ClusterTemplate) => usedBy?.get(t.uuid) ?? [];
  // What each template shows and is filtered and sorted by, worked out once per list and images
  // (not per keystroke, per comparison or per drawn row), in name order: the other orders sort
  // that stably, so equal versions or counts stay by name.
  const derived = useMemo(() => (Array.isArray(list) ? list.map((t) => derive(t, choices)).sort((a, b) => byText(a.t.name, b.t.name)) : []), [list, choices]);
  const rows = useMemo(() => {
    const needle = q.trim().toLowerCase();
    const out = needle ? derived.filter((d) => d.text.some((x) => x.includes(needle))) : [...derived];
    if (sort === 'version') out.sort((a, b) => byText(b.vkey, a.vkey));
    else if (sort === 'used') out.sort((a, b) => users(b.t).length - users(a.t).length);
    return out;
  }, [derived, q, sort, sort === 'used' && usedBy]);
  useEffect(() => setPage(0), [q, sort]);
  const pages = Math.max(1, Math.ceil(rows.length / PAGE));
  const shown = rows.slice(page * PAGE, page * PAGE + PAGE);
  async function remove(t: ClusterTemplate) {
    setDoomed(undefined);
    try {
      await must(api.DELETE('/v1/clustertemplates/{ident}', { params: { path: { ident: t.uuid } } }));
      setMsg({ kind: 'ok', text: `Template ${t.name} deleted.` });
      void load();
    } catch (e) {
      setMsg({ kind: 'error', text: named((e as Error).message, new Map([[t.uuid, t.name]])) });
    }
  }
  const inUse = doomed ? users(doomed) : [];
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
        <>
          <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
            <label for="tf-q">Filter</label>
            <input id="tf-q" type="search" value={q} placeholder="name, version, image or CNI" onInput={(e) => setQ((e.target as HTMLInputElement).value)} />
            <label for="tf-sort">Sort by</label>
            <select id="tf-sort" value={sort} onChange={(e) => setSort((e.target as HTMLSelectElement).value as never)}>
              <option value="name">Name</option>
              <option value="version">Kubernetes version, newest first</option>
              <option value="used">Clusters using it</option>
            </select>
          </form>
          <p class="count" role="status">
            {rows.length === list.length ? `${list.length} template${list.length === 1 ? '' : 's'}` : `${rows.length} of ${list.length} templates`}
          </p>
          {rows.length === 0 ? (
            <p class="empty">No template matches this filter.</p>
          ) : (
            <div class="table-wrap">
              <table class="templates">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Kubernetes</th>
                    <th scope="col">CNI</th>
                    <th scope="col">Add-ons</th>
                    <th scope="col">Image</th>
                    <th scope="col">Visibility</th>
                    <th scope="col">Used by</th>
                    <th scope="col">Change</th>
                  </tr>
                </thead>
                <tbody>
                  {shown.map(({ t, k }) => {
                    const n = users(t).length;
                    return (
                      <tr key={t.uuid}>
                        <th scope="row" class="name">
                          {t.name}
                        </th>
                        <td class="kube">
                          {versionText(k)}
                          {k.imageVersion && (
                            <div class="reason">
                              <span aria-hidden="true">! </span>
                              {mismatchText(k, t.image_id)}
                            </div>
                          )}
                        </td>
                        <td>{t.network_driver ?? 'flannel'}</td>
                        <td>{addonsOf(t).join(', ') || 'defaults'}</td>
                        <td class="name">{t.image_id}</td>
                        <td>
                          {t.public ? 'public' : 'project'}
                          {t.hidden ? ', hidden' : ''}
                        </td>
                        <td>{usedBy ? `${n} cluster${n === 1 ? '' : 's'}` : '…'}</td>
                        <td class="change">
                          <WriteButton id={`edit-${t.uuid}`} aria-label={`Edit ${t.name}`} canWrite={scope.can_write && mine(t)} reason={scope.can_write && !mine(t) ? 'A public template of another project: only an admin changes it.' : undefined} class="secondary" onClick={() => navigate(href(project, 'templates', t.uuid, 'edit'))}>
                            Edit
                          </WriteButton>
                          <WriteButton id={`copy-${t.uuid}`} aria-label={`Copy ${t.name}`} canWrite={scope.can_write} class="secondary" onClick={() => navigate(`${href(project, 'templates', 'new')}?from=${encodeURIComponent(t.uuid)}`)}>
                            Copy
                          </WriteButton>
                          <WriteButton id={`delete-${t.uuid}`} aria-label={`Delete ${t.name}`} canWrite={scope.can_write && mine(t)} reason={scope.can_write && !mine(t) ? 'A public template of another project: only an admin deletes it.' : undefined} class="danger" onClick={() => setDoomed(t)}>
                            Delete
                          </WriteButton>
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          )}
          <Pager page={page} pages={pages} setPage={setPage} />
        </>
      )}
      <Dialog title={`Delete template ${doomed?.name ?? ''}?`} open={!!doomed} onClose={() => setDoomed(undefined)}>
        {inUse.length > 0 ? (
          <>
            <p>
              {doomed?.name} is in use by {inUse.length} cluster{inUse.length === 1 ? '' : 's'} of this project, so it cannot be deleted:
            </p>
            <ul class="in-use" aria-label={`Clusters using ${doomed?.name ?? ''}`}>
              {inUse.map((c) => (
                <li key={c.uuid}>
                  <a href={href(project, 'clusters', c.uuid)}>{c.name}</a>
                </li>
              ))}
            </ul>
            <p>To change it for new clusters, make a copy and change the copy.</p>
          </>
        ) : (
          <p>A template that clusters still use cannot be deleted.</p>
        )}
        {doomed && <Cli cmd={`openstack coe cluster template delete ${shq(doomed.name)}`} />}
        <div class="buttons">
          <button type="button" class="secondary" onClick={() => setDoomed(undefined)}>
            Cancel
          </button>
          {doomed && inUse.length > 0 ? (
            <button type="button" onClick={() => navigate(`${href(project, 'templates', 'new')}?from=${encodeURIComponent(doomed.uuid)}`)}>
              Copy {doomed.name}
            </button>
          ) : (
            <button type="button" class="danger" onClick={() => doomed && remove(doomed)}>
              Delete
            </button>
          )}
        </div>
      </Dialog>
    </section>
  );
}
