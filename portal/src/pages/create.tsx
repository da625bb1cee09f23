// The create wizard: template (its Kubernetes version, CNI, add-ons), name and counts per role,
// flavors with their sizes, keypair, typed labels, then a review with the create's bill against every
// quota of the project and its label warnings (the API's dry-run of the same body): a shortage blocks
// the submit and names the quota. Server-side errors land on their field and step; the form survives
// a login in the middle (sessionStorage, no secret in it).
import { useEffect, useMemo, useState } from 'preact/hooks';
import { allPages, api, ApiFailure, errorField, must, named, type ClusterTemplate } from '../api';
import { BillPanel, blockedBy, refusalOf, useDryRun } from '../ui/bill';
import { flavorText, useChoices, type Choices } from '../choices';
import { kubeVersionOf, mismatchText, versionText } from '../kube-version';
import { href, navigate } from '../router';
import { useDraft, type Scope } from '../session';
import { ago, Cli, described, Field, Notice, Pager } from '../ui/components';
import { LabelsForm } from '../ui/labels-form';
import { shq, shqOr } from '../ui/shell';

const STEPS = ['Template', 'Size', 'Access and labels', 'Review'] as const;
const FIELD_STEP: Record<string, number> = { cluster_template_id: 0, name: 1, master_count: 1, node_count: 1, master_flavor_id: 1, flavor_id: 1, keypair: 2, labels: 2, docker_volume_size: 1 };

interface Draft {
  step: number;
  cluster_template_id: string;
  name: string;
  master_count: string;
  node_count: string;
  master_flavor_id: string;
  flavor_id: string;
  keypair: string;
  labels: Record<string, string>;
}

export const addonsOf = (t: Pick<ClusterTemplate, 'labels'>) =>
  Object.entries(t.labels ?? {})
    .filter(([k, v]) => k.endsWith('_enabled') && /^(true|1|yes|on)$/i.test(v))
    .map(([k]) => k.replace(/_enabled$/, '').replace(/_/g, '-'));

export function CreatePage({ project, scope }: { project: string; scope: Scope }) {
  const [d, set, clear, draft] = useDraft<Draft>(`create:${project}`, { step: 0, cluster_template_id: '', name: '', master_count: '1', node_count: '1', master_flavor_id: '', flavor_id: '', keypair: '', labels: {} });
  const [templates, setTemplates] = useState<ClusterTemplate[] | undefined>();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const choices = useChoices(project);
  useEffect(() => {
    allPages<ClusterTemplate>('/v1/clustertemplates/detail', 'clustertemplates').then(setTemplates, (e: Error) => setGeneral(e.message));
  }, [project]);
  const t = templates?.find((x) => x.uuid === d.cluster_template_id);
  const body = {
    name: d.name,
    cluster_template_id: d.cluster_template_id,
    master_count: Number(d.master_count),
    node_count: Number(d.node_count),
    ...(d.master_flavor_id ? { master_flavor_id: d.master_flavor_id } : {}),
    ...(d.flavor_id ? { flavor_id: d.flavor_id } : {}),
    ...(d.keypair ? { keypair: d.keypair } : {}),
    ...(Object.keys(d.labels).length ? { labels: d.labels, merge_labels: true } : {}),
  };
  const reviewing = Math.min(d.step, STEPS.length - 1) === STEPS.length - 1 && !!t && scope.can_write;
  const bill = useDryRun(reviewing ? () => must(api.POST('/v1/dry-run/clusters', { body })) : undefined, JSON.stringify(body));
  const refused = refusalOf(bill.answer);
  const blocked = blockedBy(bill.answer) ?? refused;
  const names = useMemo(() => new Map((templates ?? []).map((x) => [x.uuid, x.name])), [templates]);
  // A refusal that names a field (a label's value) lands on it too, for when the user goes back.
  useEffect(() => {
    const f = refused ? errorField(refused) : undefined;
    if (refused && f) setErrors((e) => ({ ...e, [f in FIELD_STEP ? f : `label:${f}`]: refused }));
  }, [refused]);

  if (!scope.can_write) {
    return (
      <section>
        <h1>Create a cluster</h1>
        <Notice kind="info">Your role in this project is reader: creating a cluster needs the member role.</Notice>
      </section>
    );
  }

  const step = Math.min(d.step, STEPS.length - 1);
  const go = (n: number) => {
    set({ step: n });
    document.getElementById('wizard-step')?.focus();
  };
  function next(e: Event) {
    e.preventDefault();
    const errs: Record<string, string> = {};
    if (step === 0 && !d.cluster_template_id) errs.cluster_template_id = 'Choose a template.';
    if (step === 1 && !/^[a-zA-Z][a-zA-Z0-9_.-]*$/.test(d.name)) errs.name = 'A name starts with a letter, then letters, digits, _, . or -.';
    setErrors(errs);
    if (Object.keys(errs).length === 0) go(step + 1);
  }
  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setErrors({});
    setGeneral(undefined);
    try {
      const r = await must(api.POST('/v1/clusters', { body }));
      clear();
      navigate(href(project, 'clusters', r.uuid));
    } catch (err) {
      const m = named((err as ApiFailure).message, names);
      const f = errorField(m);
      if (f && (f in FIELD_STEP || f in d.labels || /label/.test(m))) {
        const key = f in FIELD_STEP ? f : `label:${f}`;
        setErrors({ [key]: m });
        go(FIELD_STEP[f] ?? 2);
      } else setGeneral(m);
    } finally {
      setBusy(false);
    }
  }
  const labelErrors = Object.fromEntries(Object.entries(errors).filter(([k]) => k.startsWith('label:')).map(([k, v]) => [k.slice(6), v]));
  const cli = [
    `openstack coe cluster create ${shqOr(d.name, 'cluster name')} --cluster-template ${shqOr(t?.name, 'template')}`,
    `--master-count ${shqOr(d.master_count, 'count')} --node-count ${shqOr(d.node_count, 'count')}`,
    d.master_flavor_id ? `--master-flavor ${shq(d.master_flavor_id)}` : '',
    d.flavor_id ? `--flavor ${shq(d.flavor_id)}` : '',
    d.keypair ? `--keypair ${shq(d.keypair)}` : '',
    Object.keys(d.labels).length ? `--labels ${shq(Object.entries(d.labels).map(([k, v]) => `${k}=${v}`).join(','))} --merge-labels` : '',
  ].filter(Boolean).join(' ');

  return (
    <section aria-labelledby="create-title">
      <h1 id="create-title">Create a cluster</h1>
      {draft.resumed !== undefined && d.step > 0 && (
        <Notice kind="info">
          You left this cluster unfinished {ago(new Date(draft.resumed).toISOString())}, at step {Math.min(d.step, STEPS.length - 1) + 1}: it is as you left it.{' '}
          <button type="button" class="link" onClick={() => draft.restart()}>
            Start over
          </button>
        </Notice>
      )}
      <ol class="wizard-steps" aria-label="Steps">
        {STEPS.map((s, i) => (
          <li key={s} aria-current={i === step ? 'step' : undefined} class={i < step ? 'done' : ''}>
            <span aria-hidden="true">{i < step ? '✓' : i + 1}</span> {s}
          </li>
        ))}
      </ol>
      <form onSubmit={step === STEPS.length - 1 ? submit : next} noValidate>
        <h2 id="wizard-step" tabIndex={-1}>
          Step {step + 1} of {STEPS.length}: {STEPS[step]}
        </h2>
        {step === 0 && <TemplateStep templates={templates} value={d.cluster_template_id} error={errors.cluster_template_id} onPick={(id) => set({ cluster_template_id: id, labels: {} })} project={project} images={choices?.images} />}
        {step === 1 && t && <SizeStep d={d} set={set} t={t} choices={choices} errors={errors} />}
        {step === 2 && t && (
          <>
            <Field id="keypair" label="Keypair" error={errors.keypair} hint="The SSH key put on every node (optional).">
              <select id="keypair" value={d.keypair} onChange={(e) => set({ keypair: (e.target as HTMLSelectElement).value })} aria-describedby={described('keypair', errors.keypair, 'x')}>
                <option value="">{t.keypair_id ? `The template’s (${t.keypair_id})` : 'None'}</option>
                {choices?.keypairs.map((k) => (
                  <option key={k.name} value={k.name}>
                    {k.name}
                  </option>
                ))}
              </select>
            </Field>
            <h3>Labels</h3>
            <p class="hint">The template’s labels apply; set only what this cluster changes (merged with the template’s).</p>
            <LabelsForm idPrefix="cl" value={d.labels} defaults={t.labels ?? {}} onChange={(labels) => set({ labels })} errors={labelErrors} />
          </>
        )}
        {step === 3 && t && (
          <>
            <dl class="facts">
              <dt>Template</dt>
              <dd>
                {t.name} (Kubernetes {versionText(kubeVersionOf({ ...t, labels: { ...(t.labels ?? {}), ...d.labels } }, choices?.images))}, {t.network_driver ?? 'flannel'})
              </dd>
              <dt>Name</dt>
              <dd>{d.name}</dd>
              <dt>Control planes</dt>
              <dd>
                {d.master_count} × {d.master_flavor_id || t.master_flavor_id || 'default flavor'}
              </dd>
              <dt>Workers</dt>
              <dd>
                {d.node_count} × {d.flavor_id || t.flavor_id || 'default flavor'}
              </dd>
              <dt>Labels set here</dt>
              <dd>{Object.entries(d.labels).map(([k, v]) => `${k}=${v}`).join(', ') || 'none'}</dd>
            </dl>
            <BillPanel id="bill" title="What this create takes from the project’s quotas" what="create" state={bill} />
          </>
        )}
        {general && <Notice kind="error">{general}</Notice>}
        <Cli cmd={cli} />
        <div class="buttons">
          {step > 0 && (
            <button type="button" class="secondary" onClick={() => go(step - 1)}>
              Back
            </button>
          )}
          <button type="button" class="secondary" onClick={() => (clear(), navigate(href(project, 'clusters')))}>
            Cancel
          </button>
          <button
            type="submit"
            disabled={busy || (step > 0 && !t) || (step === STEPS.length - 1 && (!!blocked || bill.loading))}
            aria-describedby={step === STEPS.length - 1 && blocked ? (refused ? 'bill-refused' : 'bill-short') : undefined}
          >
            {step === STEPS.length - 1 ? (busy ? 'Creating…' : 'Create cluster') : 'Next'}
          </button>
        </div>
      </form>
    </section>
  );
}

const PICK_PAGE = 10;

/** The template picker: searchable and paged (a project may have thousands), each with the Kubernetes it runs. */
function TemplateStep(props: { templates: ClusterTemplate[] | undefined; value: string; error: string | undefined; onPick: (id: string) => void; project: string; images: Choices['images'] | undefined }) {
  const [q, setQ] = useState('');
  const usable = useMemo(() => (props.templates ?? []).filter((t) => t.coe === 'kubernetes').sort((a, b) => a.name.localeCompare(b.name)), [props.templates]);
  const found = useMemo(() => {
    const needle = q.trim().toLowerCase();
    return needle ? usable.filter((t) => t.name.toLowerCase().includes(needle) || kubeVersionOf(t, props.images).version.includes(needle) || (t.network_driver ?? '').includes(needle)) : usable;
  }, [usable, q, props.images]);
  // Open on the page of the chosen template.
  const [page, setPage] = useState(-1);
  const at = page >= 0 ? page : Math.max(0, Math.floor(found.findIndex((t) => t.uuid === props.value) / PICK_PAGE));
  useEffect(() => setPage(q ? 0 : -1), [q]);
  if (!props.templates) return <p role="status">Loading templates…</p>;
  if (usable.length === 0) {
    return (
      <p class="empty">
        No template yet. <a href={`${href(props.project, 'templates', 'new')}?return=create`}>Create a template</a> first: you come back here with it chosen.
      </p>
    );
  }
  const pages = Math.max(1, Math.ceil(found.length / PICK_PAGE));
  const shown = found.slice(at * PICK_PAGE, at * PICK_PAGE + PICK_PAGE);
  const chosen = usable.find((t) => t.uuid === props.value);
  return (
    <>
      <div class="filters" role="search">
        <label for="pick-q">Find a template</label>
        <input id="pick-q" type="search" value={q} placeholder="name, version or CNI" onInput={(e) => setQ((e.target as HTMLInputElement).value)} />
        <span class="count" role="status">
          {found.length === usable.length ? `${usable.length} template${usable.length === 1 ? '' : 's'}` : `${found.length} of ${usable.length} templates`}
          {chosen ? ` · chosen: ${chosen.name}` : ''}
        </span>
      </div>
      <fieldset class="template-pick" aria-describedby={props.error ? 'cluster_template_id-error' : undefined}>
        <legend>Template</legend>
        {shown.length === 0 && <p class="empty">No template matches.</p>}
        {shown.map((t) => {
          const k = kubeVersionOf(t, props.images);
          return (
            <label key={t.uuid} class={`card${props.value === t.uuid ? ' card-on' : ''}`}>
              <input type="radio" name="template" value={t.uuid} checked={props.value === t.uuid} onChange={() => props.onPick(t.uuid)} />
              <strong class="name">{t.name}</strong>
              <span>Kubernetes {versionText(k)}</span>
              {k.imageVersion && (
                <span class="reason">
                  <span aria-hidden="true">! </span>
                  {mismatchText(k, t.image_id)}
                </span>
              )}
              <span>CNI: {t.network_driver ?? 'flannel'}</span>
              <span>Add-ons: {addonsOf(t).join(', ') || 'defaults'}</span>
              <span>
                Flavors: {t.master_flavor_id ?? '—'} / {t.flavor_id ?? '—'}
                {t.public ? ' · public' : ''}
              </span>
            </label>
          );
        })}
        {props.error && (
          <p class="error" id="cluster_template_id-error" role="alert">
            {props.error}
          </p>
        )}
      </fieldset>
      <Pager page={at} pages={pages} setPage={setPage} label="Pages of templates" />
    </>
  );
}

function SizeStep({ d, set, t, choices, errors }: { d: Draft; set: (p: Partial<Draft>) => void; t: ClusterTemplate; choices: Choices | undefined; errors: Record<string, string> }) {
  const input = (k: 'name' | 'master_count' | 'node_count', label: string, type: 'text' | 'number', hint?: string) => (
    <Field id={k} label={label} error={errors[k]} hint={hint}>
      <input
        id={k}
        type={type as "text"}
        min={type === 'number' ? (k === 'master_count' ? 1 : 0) : undefined}
        value={d[k]}
        required
        aria-invalid={errors[k] ? 'true' : undefined}
        aria-describedby={described(k, errors[k], hint)}
        onInput={(e) => set({ [k]: (e.target as HTMLInputElement).value })}
      />
    </Field>
  );
  const flavor = (k: 'master_flavor_id' | 'flavor_id', label: string, fallback: string | null | undefined) => (
    <Field id={k} label={label} error={errors[k]}>
      <select id={k} value={d[k]} onChange={(e) => set({ [k]: (e.target as HTMLSelectElement).value })} aria-describedby={described(k, errors[k])}>
        <option value="">The template’s ({fallback ?? 'none'})</option>
        {choices?.flavors.map((f) => (
          <option key={f.id} value={f.name}>
            {flavorText(f)}
          </option>
        ))}
      </select>
    </Field>
  );
  return (
    <>
      {input('name', 'Cluster name', 'text', 'Starts with a letter; letters, digits, _, . and -.')}
      {input('master_count', 'Control plane nodes', 'number', t.master_lb_enabled ? '1, 3 or 5 for an odd etcd quorum.' : 'This template has no API load balancer: one control plane.')}
      {flavor('master_flavor_id', 'Control plane flavor', t.master_flavor_id)}
      {input('node_count', 'Worker nodes', 'number')}
      {flavor('flavor_id', 'Worker flavor', t.flavor_id)}
    </>
  );
}
