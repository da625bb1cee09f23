// One node's user-data in the format its image reads (the node image contract, src/cluster-spec/image.ts):
// #cloud-config for Ubuntu, an Ignition config for Fedora CoreOS, without any secret (material.ts); and
// those secrets apart. Inputs are checked first, and the user-data against Nova's size limit.

import { userDataFormat } from '../../cluster-spec/image.js';
import { nodeLabelProblem, nodeTaintProblem } from '../../cluster-spec/node-labels.js';
import { assertBootstrapToken, assertCertificate, assertControlPlanePki } from '../join.js';
import type { ClusterSpec } from '../../cluster-spec/types.js';
import { renderCloudConfig } from './cloud-config.js';
import { renderIgnition } from './ignition.js';
import { NOVA_USER_DATA_LIMIT, type UserDataInput } from './inputs.js';
import { materialSourceFiles } from './material.js';
import { nodeConfig, type NodeConfig, type NodeFile } from './node-files.js';

export { kubeadmConfigYaml } from './node-files.js';

const NODE_NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const HOST = /^([0-9]{1,3}(\.[0-9]{1,3}){3}|[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*)$/;
const LABEL_KEY = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;

export function validateUserDataInput(input: UserDataInput): void {
  if (!NODE_NAME.test(input.nodeName)) throw new Error(`node name ${input.nodeName} is not a lowercase RFC 1123 label (≤63)`);
  for (const h of [input.endpoint.address, ...(input.endpoint.extraSans ?? [])]) {
    if (!HOST.test(h)) throw new Error(`API endpoint name ${h} is not an IPv4 address or DNS name`);
  }
  assertBootstrapToken(input.bootstrapToken);
  if (input.role === 'worker') assertCertificate(input.caCert, 'ca');
  else assertControlPlanePki(input.pki);
  for (const [k, v] of Object.entries(input.nodeLabels ?? {})) {
    const why = !LABEL_KEY.test(k) ? 'is not a label key' : !LABEL_VALUE.test(v) ? `has a value that is not a label value` : nodeLabelProblem(k);
    if (why) throw new Error(`node label ${k} ${why}`);
  }
  for (const t of input.nodeTaints ?? []) {
    const why = !LABEL_KEY.test(t.key) ? 'is not a taint key' : !LABEL_VALUE.test(t.value ?? '') ? 'has a value that is not a label value' : nodeTaintProblem(t.key);
    if (why) throw new Error(`node taint ${t.key} ${why}`);
  }
}

/** One node as it boots: its user-data (no secret in it) and its material (the secrets it fetches once, material.ts). */
export interface RenderedNode {
  userData: string;
  material: NodeFile[];
}

/**
 * One node: its user-data, in its image's format, with everything but its secrets and where to fetch those; and
 * the secrets themselves, which the service hands over once. Workers never receive CA keys (only the CA hash).
 */
export function renderNode(spec: ClusterSpec, input: UserDataInput): RenderedNode {
  validateUserDataInput(input);
  const cfg = nodeConfig(spec, input);
  const material = cfg.files.filter((f) => f.secret);
  const inUserData: NodeConfig = { ...cfg, files: [...cfg.files.filter((f) => !f.secret), ...materialSourceFiles(input.material)] };
  const userData = userDataFormat(cfg.image) === 'ignition' ? renderIgnition(inUserData) : renderCloudConfig(inUserData);
  const size = base64Size(userData);
  if (size > NOVA_USER_DATA_LIMIT) {
    throw new Error(`user-data for ${input.nodeName} is ${size} bytes in base64, over Nova's ${NOVA_USER_DATA_LIMIT}`);
  }
  return { userData, material: material.map(({ secret: _s, ...f }) => f) };
}

export function base64Size(userData: string): number {
  return Math.ceil(Buffer.byteLength(userData, 'utf8') / 3) * 4;
}
