// Create or edit a template: image, network, flavors, keypair, CNI, the typed label form; public
// and hidden for admins. An edit is sent as a JSON patch of what changed. The label warnings the API
// answers (Warning headers) follow to the template list.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiFailure, errorField, must, mustWarned, named, type ClusterTemplate } from '../api';
import { kubeVersionOf, mismatchText, versionText } from '../kube-version';
import { flashWarnings } from './templates';
import { flavorText, useChoices } from '../choices';
import { href, navigate } from '../router';
import { readDraft, useDraft, writeDraft, type Scope } from '../session';
import { Cli, described, Field, Notice } from '../ui/components';
import { LabelsForm } from '../ui/labels-form';
import { shq, shqOr } from '../ui/shell';

interface Form {
  name: string;
  image_id: string;
  external_network_id: string;
  master_flavor_id: string;
  flavor_id: string;
  keypair_id: string;
  network_driver: string;
  docker_volume_size: string;
  master_lb_enabled: boolean;
  floating_ip_enabled: boolean;
  public: boolean;
  hidden: boolean;
  labels: Record<string, string>;
}

const EMPTY: Form = {
  name: '', image_id: '', external_network_id: '', master_flavor_id: '', flavor_id: '', keypair_id: '', network_driver: 'calico',
  docker_volume_size: '', master_lb_enabled: true, floating_ip_enabled: true, public: false, hidden: false, labels: { kube_tag: '' },
};

function fromTemplate(t: ClusterTemplate): Form {
  return {
    name: t.name, image_id: t.image_id, external_network_id: t.external_network_id ?? '', master_flavor_id: t.master_flavor_id ?? '', flavor_id: t.flavor_id ?? '',
    keypair_id: t.keypair_id ?? '', network_driver: t.network_driver ?? 'flannel', docker_volume_size: t.docker_volume_size ? String(t.docker_volume_size) : '',
    master_lb_enabled: t.master_lb_enabled, floating_ip_enabled: t.floating_ip_enabled, public: t.public, hidden: t.hidden, labels: { ...(t.labels ?? {}) },
  };
}

function body(f: Form) {
  const labels = Object.fromEntries(Object.entries(f.labels).filter(([, v]) => v !== ''));
  return {
    name: f.name, coe: 'kubernetes', image_id: f.image_id, network_driver: f.network_driver, master_lb_enabled: f.master_lb_enabled, floating_ip_enabled: f.floating_ip_enabled,
    ...(f.external_network_id ? { external_network_id: f.external_network_id } : {}),
    ...(f.master_flavor_id ? { master_flavor_id: f.master_flavor_id } : {}),
    ...(f.flavor_id ? { flavor_id: f.flavor_id } : {}),
    ...(f.keypair_id ? { keypair_id: f.keypair_id } : {}),
    ...(f.docker_volume_size ? { docker_volume_size: Number(f.docker_volume_size) } : {}),
    ...(f.public ? { public: true } : {}),
    ...(f.hidden ? { hidden: true } : {}),
    labels,
  };
}

/** The update as magnumclient takes it: `replace 'attr=value'…`, then `remove 'attr'…`, each a command. */
function updateCli(original: ClusterTemplate | undefined, f: Form): string {
  if (!original) return 'openstack coe cluster template show …';
  const before = body(fromTemplate(original)) as Record<string, unknown>;
  const after = body(f) as Record<string, unknown>;
  const text = (v: unknown) => (v && typeof v === 'object' ? Object.entries(v as Record<string, string>).map(([k, x]) => `${k}=${x}`).join(',') : String(v));
  const changed = Object.keys(after).filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
  const removed = Object.keys(before).filter((k) => !(k in after));
  const cmd = (op: string, args: string[]) => `openstack coe cluster template update ${shq(original.name)} ${op} ${args.join(' ')}`;
  const lines = [...(changed.length ? [cmd('replace', changed.map((k) => shq(`${k}=${text(after[k])}`)))] : []), ...(removed.length ? [cmd('remove', removed.map((k) => shq(k)))] : [])];
  return lines.join(' && ') || `openstack coe cluster template show ${shq(original.name)}`;
}

/** Where a saved new template sends the user: back to the create wizard (`?return=create`) with it chosen, else the list. */
const returnTo = () => new URLSearchParams(location.search).get('return');

export function TemplateFormPage({ project, id, scope }: { project: string; id: string | null; scope: Scope }) {
  const [original, setOriginal] = useState<ClusterTemplate | undefined>();
  const copyOf = id ? null : new URLSearchParams(location.search).get('from');
  const [f, set, clear] = useDraft<Form>(`template:${project}:${id ?? (copyOf ? `copy:${copyOf}` : 'new')}`, EMPTY);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState<string | undefined>();
  const [mismatchShown, setMismatchShown] = useState<string | undefined>();
  const choices = useChoices(project);
  useEffect(() => {
    const source = id ?? copyOf;
    if (!source) return;
    must(api.GET('/v1/clustertemplates/{ident}', { params: { path: { ident: source } } })).then((t) => {
      const tt = t as ClusterTemplate;
      if (id) setOriginal(tt);
      if (!readDraft(`template:${project}:${id ?? `copy:${copyOf}`}`)) set(id ? fromTemplate(tt) : { ...fromTemplate(tt), name: `${tt.name}-copy`, public: false, hidden: false });
    }, (e: Error) => setGeneral(e.message));
  }, [id, copyOf]);
  const k = kubeVersionOf({ image_id: f.image_id, labels: Object.fromEntries(Object.entries(f.labels).filter(([, v]) => v !== '')) }, choices?.images);
  const mismatch = mismatchText(k, f.image_id);
  if (!scope.can_write) return <Notice kind="info">Your role in this project is reader: templates need the member role.</Notice>;

  async function submit(e: Event) {
    e.preventDefault();
    setErrors({});
    setGeneral(undefined);
    // Warn at save: an image whose Kubernetes differs from the template's makes every create refused.
    if (mismatch && mismatchShown !== mismatch) {
      setMismatchShown(mismatch);
      document.getElementById('kube-mismatch')?.focus();
      return;
    }
    try {
      let created: string | undefined;
      let warnings: string[] = [];
      if (!id) {
        const r = await mustWarned(api.POST('/v1/clustertemplates', { body: body(f) as never }));
        warnings = r.warnings;
        created = (r.data as { uuid: string }).uuid;
      }
      else {
        const before = body(fromTemplate(original!)) as Record<string, unknown>;
        const after = body(f) as Record<string, unknown>;
        const ops = [...new Set([...Object.keys(before), ...Object.keys(after)])]
          .filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]))
          .map((k) => (k in after ? { op: k in before ? 'replace' : 'add', path: `/${k}`, value: after[k] } : { op: 'remove', path: `/${k}` }));
        if (ops.length) warnings = (await mustWarned(api.PATCH('/v1/clustertemplates/{ident}', { params: { path: { ident: id } }, body: ops as never }))).warnings;
      }
      flashWarnings(project, f.name, warnings);
      clear();
      if (created && returnTo() === 'create') {
        // Back to the wizard, with the new template chosen.
        writeDraft(`create:${project}`, { ...(readDraft(`create:${project}`) ?? {}), step: 0, cluster_template_id: created, labels: {} });
        navigate(href(project, 'clusters', 'new'));
      } else navigate(href(project, 'templates'));
    } catch (err) {
      const m = named((err as ApiFailure).message, new Map(original ? [[original.uuid, original.name]] : []));
      const field = errorField(m);
      if (field) setErrors({ [field]: m });
      else setGeneral(m);
    }
  }
  const text = (k: 'name' | 'docker_volume_size', label: string, type: 'text' | 'number' = 'text', hint?: string) => (
    <Field id={`t-${k}`} label={label} error={errors[k]} hint={hint}>
      <input id={`t-${k}`} type={type as "text"} value={f[k]} aria-invalid={errors[k] ? 'true' : undefined} aria-describedby={described(`t-${k}`, errors[k], hint)} onInput={(e) => set({ [k]: (e.target as HTMLInputElement).value })} />
    </Field>
  );
  const select = (k: 'image_id' | 'external_network_id' | 'master_flavor_id' | 'flavor_id' | 'keypair_id' | 'network_driver', label: string, options: [string, string][], none?: string) => (
    <Field id={`t-${k}`} label={label} error={errors[k]}>
      <select id={`t-${k}`} value={f[k]} aria-invalid={errors[k] ? 'true' : undefined} aria-describedby={described(`t-${k}`, errors[k])} onChange={(e) => set({ [k]: (e.target as HTMLSelectElement).value })}>
        {none !== undefined && <option value="">{none}</option>}
        {options.map(([v, l]) => (
          <option key={v} value={v}>
            {l}
          </option>
        ))}
      </select>
    </Field>
  );
  const check = (k: 'master_lb_enabled' | 'floating_ip_enabled' | 'public' | 'hidden', label: string) => (
    <div class="check">
      <input id={`t-${k}`} type="checkbox" checked={f[k]} onChange={(e) => set({ [k]: (e.target as HTMLInputElement).checked })} />
      <label for={`t-${k}`}>{label}</label>
    </div>
  );
  const flavors = (choices?.flavors ?? []).map((x) => [x.name, flavorText(x)] as [string, string]);
  return (
    <section aria-labelledby="tf-title">
      <h1 id="tf-title">{id ? `Edit template ${original?.name ?? ''}` : copyOf ? 'Copy a template' : 'Create a template'}</h1>
      {returnTo() === 'create' && <p class="hint">Once saved, you are back in the create wizard with this template chosen.</p>}
      <form onSubmit={submit}>
        {text('name', 'Name')}
        {select('image_id', 'Image', (choices?.images ?? []).map((i) => [i.name, `${i.name}${i.os_distro ? ` (${i.os_distro}${i.kube_version ? `, Kubernetes ${i.kube_version}` : ''})` : ' (no os_distro: not usable)'}`]), 'Choose an image')}
        <p class="kube-version" id="t-kube-version">
          Kubernetes this template runs: <strong>{versionText(k)}</strong>
          {k.source === 'default' ? ' — set the label kube_tag to choose another.' : ' (its label kube_tag).'}
        </p>
        {mismatch && (
          <div class="notice notice-warn" id="kube-mismatch" tabIndex={-1} role={mismatchShown === mismatch ? 'alert' : 'status'}>
            <strong>Warning: </strong>
            {mismatch}
            <div class="buttons">
              <button type="button" class="secondary" onClick={() => set({ labels: { ...f.labels, kube_tag: k.imageVersion! } })}>
                Set kube_tag to {k.imageVersion}
              </button>
              {mismatchShown === mismatch && <span class="sub">Save again to keep it as it is.</span>}
            </div>
          </div>
        )}
        {select('external_network_id', 'External network', (choices?.external_networks ?? []).map((n) => [n.name, n.name]), 'Choose a network')}
        {select('master_flavor_id', 'Control plane flavor', flavors, 'None')}
        {select('flavor_id', 'Worker flavor', flavors, 'None')}
        {select('keypair_id', 'Keypair', (choices?.keypairs ?? []).map((k) => [k.name, k.name]), 'None')}
        {select('network_driver', 'Network driver (CNI)', [['calico', 'calico'], ['flannel', 'flannel']])}
        {text('docker_volume_size', 'Container volume size (GB, optional)', 'number')}
        {check('master_lb_enabled', 'API load balancer (needed for several control planes and upgrades)')}
        {check('floating_ip_enabled', 'Floating IPs on the nodes')}
        {scope.is_admin && check('public', 'Public: every project may use it')}
        {scope.is_admin && check('hidden', 'Hidden: not listed, still usable by name')}
        <h2>Labels</h2>
        <LabelsForm idPrefix="tl" value={f.labels} onChange={(labels) => set({ labels })} errors={errors} />
        {general && <Notice kind="error">{general}</Notice>}
        <Cli
          cmd={
            id
              ? updateCli(original, f)
              : `openstack coe cluster template create ${shqOr(f.name, 'template name')} --coe kubernetes --image ${shqOr(f.image_id, 'image')} --external-network ${shqOr(f.external_network_id, 'network')} --network-driver ${shq(f.network_driver)}${f.master_flavor_id ? ` --master-flavor ${shq(f.master_flavor_id)}` : ''}${f.flavor_id ? ` --flavor ${shq(f.flavor_id)}` : ''}${f.keypair_id ? ` --keypair ${shq(f.keypair_id)}` : ''}${f.master_lb_enabled ? ' --master-lb-enabled' : ''}${f.floating_ip_enabled ? ' --floating-ip-enabled' : ''}${Object.entries(f.labels).filter(([, v]) => v).length ? ` --labels ${shq(Object.entries(f.labels).filter(([, v]) => v).map(([k, v]) => `${k}=${v}`).join(','))}` : ''}`
          }
        />
        <div class="buttons">
          <button type="button" class="secondary" onClick={() => (clear(), navigate(href(project, 'templates')))}>
            Cancel
          </button>
          <button type="submit">{mismatchShown && mismatchShown === mismatch ? 'Save anyway' : id ? 'Save template' : 'Create template'}</button>
        </div>
      </form>
    </section>
  );
}
