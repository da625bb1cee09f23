// Renders every artefact of one cluster into a file map (used by scripts/render.ts and the golden tests).

import { stringify } from 'yaml';
import { renderAddons, type K8sObject } from './addons/framework.js';
import { addons } from './addons/index.js';
import { renderCloudConfig, type CloudCredential, type CloudNetwork } from './cloudconf.js';
import type { ApiEndpoint } from './user-data/inputs.js';
import { base64Size, renderUserData } from './user-data/userdata.js';
import { userDataFormat, type NodeImage } from '../cluster-spec/image.js';
import { groupNodeLabels } from '../cluster-spec/node-labels.js';
import { kmsCloudConf } from '../features/kms/render.js';
import { networkPlan } from '../cluster-spec/network-plan.js';
import type { ControlPlanePki } from './join.js';
import type { ClusterSpec } from '../cluster-spec/types.js';

export interface ClusterMaterial {
  pki: ControlPlanePki;
  bootstrapToken: string;
  endpoint: ApiEndpoint;
  credential: CloudCredential;
  network: CloudNetwork;
  /** The Barbican secret holding the cluster's KMS key (barbican_kms_enabled); a placeholder when rendering offline. */
  kmsKeyId?: string;
  /** The image the nodes boot (the node image contract); default: Ubuntu that says no kube_version. */
  image?: NodeImage;
}

/** Node names as the worker chooses them: `<shortName>-<role>-<suffix>`. */
export function nodeName(spec: ClusterSpec, group: 'control-plane' | 'worker', suffix: string): string {
  return `${spec.cluster.shortName}-${group}-${suffix}`;
}

export function renderCluster(spec: ClusterSpec, warnings: string[], m: ClusterMaterial): Record<string, string> {
  const common = { endpoint: m.endpoint, bootstrapToken: m.bootstrapToken, ...(m.image ? { image: m.image } : {}) };
  const master = { nodeLabels: groupNodeLabels({ name: 'default-master', role: 'master' }, null) };
  const worker = { nodeLabels: groupNodeLabels({ name: 'default-worker', role: 'worker' }, null) };
  const ext = m.image && userDataFormat(m.image) === 'ignition' ? 'ign' : 'yaml';
  const kms = spec.kms.enabled
    ? { kms: { cloudConf: kmsCloudConf(m.credential, m.kmsKeyId ?? '00000000-0000-0000-0000-000000000000'), ...(m.credential.caCertPem ? { caCert: m.credential.caCertPem } : {}) } }
    : {};
  const userData = {
    [`user-data/control-plane-init.${ext}`]: renderUserData(spec, { ...common, ...master, role: 'init', nodeName: nodeName(spec, 'control-plane', 'a0000'), pki: m.pki, ...kms }),
    [`user-data/control-plane-join.${ext}`]: renderUserData(spec, { ...common, ...master, role: 'control-plane', nodeName: nodeName(spec, 'control-plane', 'a0001'), pki: m.pki, ...kms }),
    [`user-data/worker.${ext}`]: renderUserData(spec, { ...common, ...worker, role: 'worker', nodeName: nodeName(spec, 'worker', 'b0000'), caCert: m.pki.ca.cert }),
  };
  const cloud = renderCloudConfig(spec, m.credential, m.network);
  const sizes = Object.fromEntries(Object.entries(userData).map(([k, v]) => [k, base64Size(v)]));
  const files: Record<string, string> = {
    'spec.json': `${JSON.stringify(spec, null, 2)}\n`,
    'warnings.txt': warnings.map((w) => `${w}\n`).join(''),
    'network-plan.yaml': stringify(networkPlan(spec), { lineWidth: 0 }),
    'cloud-provider.yaml': stringify({ occm: cloud.occm, cinderCsi: cloud.cinderCsi, userDataBase64Sizes: sizes }, { lineWidth: 0 }),
    ...userData,
  };
  for (const [k, v] of Object.entries(cloud.secretData)) files[`cloud-config/${k}`] = v;
  for (const a of renderAddons(addons(), spec, { cloud })) files[`addons/${a.order}-${a.name}.yaml`] = manifest(a.objects);
  return files;
}

/** One multi-document YAML per add-on, objects in apply order. */
export function manifest(objects: readonly K8sObject[]): string {
  return objects.map((o) => stringify(o, { lineWidth: 0 })).map((d) => `---\n${d}`).join('');
}
