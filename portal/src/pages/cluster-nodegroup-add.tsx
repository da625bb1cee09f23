// "Add a node group": what Magnum API 1.14's node group create takes (name, flavor, image, node count, min and
// max, Docker volume size, labels merged over the cluster's, the availability zone as the label
// availability_zone, and the nodes' Kubernetes labels and taints). Lines are checked here as the API reads
// them; the dry-run checks the rest as the create would, and its refusal disables the submit, naming why.
import { useState } from 'preact/hooks';
import { api, ApiFailure, errorField, must, type ClusterLive, type Schemas } from '../api';
import { flavorText, type Choices } from '../choices';
import { BillPanel, blockedBy, refusalOf, useDryRun } from '../ui/bill';
import { Cli, described, Field, Notice } from '../ui/components';
import { shq, shqOr } from '../ui/shell';

type Body = Schemas['NodeGroupCreate'];
type Taint = NonNullable<Body['node_taints']>[number];
const EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const;

/** `key=value` lines as a map; the first bad line's message otherwise. */
export function parsePairs(text: string, what: string): Record<string, string> | string {
  const out: Record<string, string> = {};
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (!line) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) return `Line ${i + 1} of the ${what}: write key=value (got '${line}').`;
    const k = line.slice(0, eq).trim();
    if (k in out) return `The ${what} give '${k}' twice.`;
    out[k] = line.slice(eq + 1).trim();
  }
  return out;
}

/** `key[=value]:Effect` lines (kubectl taint's spelling) as taints; the first bad line's message otherwise. */
export function parseTaints(text: string): Taint[] | string {
  const out: Taint[] = [];
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (!line) continue;
    const m = /^([^=:\s]+)(?:=([^:\s]*))?:(\w+)$/.exec(line);
    if (!m) return `Line ${i + 1} of the taints: write key=value:Effect or key:Effect (got '${line}').`;
    const effect = m[3] as Taint['effect'];
    if (!(EFFECTS as readonly string[]).includes(effect)) return `Line ${i + 1} of the taints: the effect is one of ${EFFECTS.join(', ')} (got '${m[3]}').`;
    out.push({ key: m[1]!, ...(m[2] !== undefined ? { value: m[2] } : {}), effect });
  }
  return out;
}

const EMPTY = { name: '', flavor_id: '', image_id: '', node_count: '1', min_node_count: '0', max_node_count: '', docker_volume_size: '', zone: '', labels: '', node_labels: '', node_taints: '' };
type Form = typeof EMPTY;

export function AddGroup({ c, choices, onDone }: { c: ClusterLive; choices: Choices | undefined; onDone: () => void }) {
  const [v, setV] = useState(EMPTY);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState<string | undefined>();
  const set = (k: keyof Form) => (e: Event) => setV({ ...v, [k]: (e.target as HTMLInputElement).value });
  const labels = parsePairs(v.labels, 'labels');
  const nodeLabels = parsePairs(v.node_labels, 'node labels');
  const taints = parseTaints(v.node_taints);
  const local: Record<string, string> = {};
  if (typeof labels === 'string') local.labels = labels;
  if (typeof nodeLabels === 'string') local.node_labels = nodeLabels;
  if (typeof taints === 'string') local.node_taints = taints;
  for (const k of ['node_count', 'min_node_count', 'max_node_count', 'docker_volume_size'] as const) if (v[k] !== '' && !/^\d+$/.test(v[k])) local[k] = 'A whole number.';
  const groupLabels = { ...(typeof labels === 'string' ? {} : labels), ...(v.zone ? { availability_zone: v.zone.trim() } : {}) };
  const body: Body = {
    name: v.name,
    node_count: Number(v.node_count),
    min_node_count: Number(v.min_node_count),
    ...(v.max_node_count ? { max_node_count: Number(v.max_node_count) } : {}),
    ...(v.docker_volume_size ? { docker_volume_size: Number(v.docker_volume_size) } : {}),
    ...(v.flavor_id ? { flavor_id: v.flavor_id } : {}),
    ...(v.image_id ? { image_id: v.image_id } : {}),
    ...(Object.keys(groupLabels).length ? { labels: groupLabels, merge_labels: true } : {}),
    ...(typeof nodeLabels !== 'string' && Object.keys(nodeLabels).length ? { node_labels: nodeLabels } : {}),
    ...(typeof taints !== 'string' && taints.length ? { node_taints: taints } : {}),
  };
  const ready = v.name !== '' && Object.keys(local).length === 0;
  const bill = useDryRun(ready ? () => must(api.POST('/v1/dry-run/clusters/{cluster}/nodegroups', { params: { path: { cluster: c.uuid } }, body })) : undefined, JSON.stringify(body));
  const refused = ready ? refusalOf(bill.answer) : undefined;
  const blocked = ready ? (blockedBy(bill.answer) ?? refused) : undefined;
  const shown = { ...local, ...(refused && errorField(refused) && errorField(refused)! in v ? { [errorField(refused)!]: refused } : {}), ...errors };
  async function submit(e: Event) {
    e.preventDefault();
    setErrors({});
    setGeneral(undefined);
    try {
      await must(api.POST('/v1/clusters/{cluster}/nodegroups', { params: { path: { cluster: c.uuid } }, body }));
      onDone();
    } catch (err) {
      const m = (err as ApiFailure).message;
      const f = errorField(m);
      if (f && f in v) setErrors({ [f]: m });
      else setGeneral(m);
    }
  }
  const input = (k: keyof Form, label: string, type: 'text' | 'number' = 'text', hint?: string) => (
    <Field id={`add-${k}`} label={label} error={shown[k]} hint={hint}>
      <input id={`add-${k}`} type={type as 'text'} value={v[k]} onInput={set(k)} aria-invalid={shown[k] ? 'true' : undefined} aria-describedby={described(`add-${k}`, shown[k], hint)} />
    </Field>
  );
  const area = (k: keyof Form, label: string, hint: string, placeholder: string) => (
    <Field id={`add-${k}`} label={label} error={shown[k]} hint={hint}>
      <textarea id={`add-${k}`} rows={2} value={v[k]} placeholder={placeholder} onInput={set(k)} aria-invalid={shown[k] ? 'true' : undefined} aria-describedby={described(`add-${k}`, shown[k], hint)} />
    </Field>
  );
  const cli = [
    `openstack coe nodegroup create ${shq(c.name)} ${shqOr(v.name, 'node group name')} --node-count ${shqOr(v.node_count, 'node count')} --min-nodes ${shqOr(v.min_node_count, 'min nodes')}`,
    v.max_node_count ? ` --max-nodes ${shq(v.max_node_count)}` : '',
    v.flavor_id ? ` --flavor ${shq(v.flavor_id)}` : '',
    v.image_id ? ` --image ${shq(v.image_id)}` : '',
    v.docker_volume_size ? ` --docker-volume-size ${shq(v.docker_volume_size)}` : '',
    body.labels ? ` --merge-labels --labels ${shq(Object.entries(body.labels).map(([k, x]) => `${k}=${x}`).join(','))}` : '',
  ].join('');
  return (
    <form onSubmit={submit}>
      {input('name', 'Name')}
      <Field id="add-flavor_id" label="Flavor" error={shown.flavor_id}>
        <select id="add-flavor_id" value={v.flavor_id} onChange={set('flavor_id')}>
          <option value="">The cluster’s worker flavor</option>
          {(choices?.flavors ?? []).map((f) => (
            <option key={f.id} value={f.name}>
              {flavorText(f)}
            </option>
          ))}
        </select>
      </Field>
      <Field id="add-image_id" label="Image" error={shown.image_id}>
        <select id="add-image_id" value={v.image_id} onChange={set('image_id')}>
          <option value="">The cluster’s image</option>
          {(choices?.images ?? []).filter((i) => i.os_distro).map((i) => (
            <option key={i.id} value={i.id}>
              {i.name}
              {i.kube_version ? ` (Kubernetes ${i.kube_version})` : ''}
            </option>
          ))}
        </select>
      </Field>
      {input('node_count', 'Nodes', 'number')}
      {input('min_node_count', 'Minimum nodes', 'number')}
      {input('max_node_count', 'Maximum nodes (optional)', 'number')}
      {input('zone', 'Availability zone (optional)', 'text', 'The label availability_zone: every node of the group in this zone. Empty: the cluster’s zones.')}
      {input('docker_volume_size', 'Volume per node, GB (optional)', 'number')}
      {area('labels', 'Labels (optional)', 'key=value, one a line: merged over the cluster’s labels.', 'boot_volume_size=40')}
      {area('node_labels', 'Kubernetes node labels (optional)', 'key=value, one a line: put on each node of the group.', 'example.com/tier=batch')}
      {area('node_taints', 'Kubernetes node taints (optional)', 'key=value:Effect or key:Effect, one a line (NoSchedule, PreferNoSchedule, NoExecute).', 'dedicated=gpu:NoSchedule')}
      {ready && <BillPanel id="add-bill" title="This node group takes" what="node group create" state={bill} />}
      {general && <Notice kind="error">{general}</Notice>}
      <Cli cmd={cli} />
      <div class="buttons">
        <button type="button" class="secondary" onClick={onDone}>
          Cancel
        </button>
        <button type="submit" id="add-submit" disabled={!ready || !!blocked || bill.loading} aria-describedby={blocked ? 'add-why' : undefined}>
          Add node group
        </button>
      </div>
      {blocked && (
        <p class="why" id="add-why">
          {blocked}
        </p>
      )}
    </form>
  );
}
