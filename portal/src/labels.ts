// The label registry (src/kube, built into the bundle by portal/build.ts) as typed form fields:
// a boolean is a checkbox, a choice a select, an integer a number; unknown labels are warnings.
import registry from 'virtual:labels';

export interface LabelInfo {
  name: string;
  module: string;
  kind: 'core' | 'addon';
  accepts: string;
  doc: string;
  ignored?: string;
  deprecated?: string;
}

export const LABELS: LabelInfo[] = (registry as { labels: LabelInfo[] }).labels;
export const UNSUPPORTED: Record<string, string> = (registry as { unsupported: Record<string, string> }).unsupported;
const BY_NAME = new Map(LABELS.map((l) => [l.name, l]));

export type FieldKind = { kind: 'bool' } | { kind: 'choice'; values: string[] } | { kind: 'int'; min: number; max: number } | { kind: 'text' };

export function fieldKind(l: LabelInfo): FieldKind {
  if (l.accepts === 'true|false') return { kind: 'bool' };
  const int = /^integer (-?\d+)\.\.(-?\d+)$/.exec(l.accepts);
  if (int) return { kind: 'int', min: Number(int[1]), max: Number(int[2]) };
  // A list of values (`systemd|cgroupfs`), or the one value taken (`systemd`); `text` and `UUID` name a kind, not a value.
  if (/^[\w.-]+(\|[\w.-]+)+$/.test(l.accepts) || (/^[a-z0-9][\w.-]*$/.test(l.accepts) && l.accepts !== 'text')) return { kind: 'choice', values: l.accepts.split('|') };
  return { kind: 'text' };
}

/** The warning a label set to a value gives whatever else the cluster has (deprecated, not supported, unknown); undefined when none. */
export function labelWarning(name: string): string | undefined {
  const s = labelStatus(name);
  if (!s.known) return s.warning;
  return s.info.deprecated ? `Deprecated: ${s.info.deprecated}` : undefined;
}

/** What the service says of a label: supported (its module), not supported (why), or unknown. */
export function labelStatus(name: string): { known: true; info: LabelInfo } | { known: false; warning: string } {
  const info = BY_NAME.get(name);
  if (info) return { known: true, info };
  const why = UNSUPPORTED[name];
  return { known: false, warning: why ? `Not supported here: ${why}` : 'Unknown label: kept on the cluster, changes nothing.' };
}

/** Each module's group as a person names it; the Kubernetes version's group comes first. */
const MODULE_NAMES: Record<string, string> = {
  kubernetes: 'Kubernetes version and runtime',
  network: 'Pod and service networks',
  nodes: 'Nodes: zones and volumes',
  apiServer: 'API server access',
  cniCalico: 'Calico (network driver)',
  cniFlannel: 'Flannel (network driver)',
  cloudProvider: 'OpenStack cloud provider',
  cinderCsi: 'Cinder volumes (CSI)',
  manilaCsi: 'Manila shares (CSI)',
  octavia: 'Octavia load balancers',
  ingress: 'Ingress',
  autoScaling: 'Auto-scaling',
  autoHealing: 'Auto-healing',
  nodeOps: 'Node drains and replacement',
  keystoneAuth: 'Keystone authentication',
  kms: 'Secrets encryption (Barbican KMS)',
  monitoring: 'Monitoring (Prometheus, Grafana)',
  metricsServer: 'Metrics server',
  dashboard: 'Kubernetes dashboard',
  dnsAutoscaler: 'DNS autoscaler',
  externalDns: 'External DNS',
};

/** A module key as words: a known name, else `someKey` → `Some key`. */
export const moduleName = (m: string) => MODULE_NAMES[m] ?? m.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/^./, (c) => c.toUpperCase()).replace(/ ([A-Z])(?=[a-z])/g, (_x, c: string) => ` ${c.toLowerCase()}`);

/** Groups in the order above (the Kubernetes version first), then any other module by name. */
export const MODULES = [...new Set(LABELS.map((l) => l.module))].sort((a, b) => {
  const order = Object.keys(MODULE_NAMES);
  const ia = order.indexOf(a) < 0 ? order.length : order.indexOf(a);
  const ib = order.indexOf(b) < 0 ? order.length : order.indexOf(b);
  return ia - ib || moduleName(a).localeCompare(moduleName(b));
});

/** A group's labels, kube_tag first. */
export const labelsOf = (m: string) => LABELS.filter((l) => l.module === m).sort((a, b) => Number(b.name === 'kube_tag') - Number(a.name === 'kube_tag'));
