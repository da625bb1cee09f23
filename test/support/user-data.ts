// Shared by the user-data tests: a worker's user-data of a v1.35.2 cluster (the image, labels and node settings
// given), and the kubeadm JoinConfiguration it carries.
import { parseAllDocuments } from 'yaml';
import { renderCloudConfig } from '../../src/bootstrap/user-data/cloud-config.js';
import { renderIgnition } from '../../src/bootstrap/user-data/ignition.js';
import type { MaterialSource, UserDataInput } from '../../src/bootstrap/user-data/inputs.js';
import { nodeConfig } from '../../src/bootstrap/user-data/node-files.js';
import { renderNode, validateUserDataInput } from '../../src/bootstrap/user-data/userdata.js';
import { userDataFormat } from '../../src/cluster-spec/image.js';
import type { ClusterSpec } from '../../src/cluster-spec/types.js';
import { parseClusterSpec } from '../../src/cluster-spec/parse.js';
import { cloudConfigFiles } from './node-files.js';
import { input, pki, TOKEN } from './spec-fixtures.js';

/** Where a test node's material would come from: nowhere reachable, with a well-formed token. */
export const TEST_MATERIAL: MaterialSource = { url: 'http://127.0.0.1:9', token: 'test-node-material-token-0123456789abcdef' };

export const endpointAndToken = { endpoint: { address: '10.0.0.10' }, bootstrapToken: TOKEN, material: TEST_MATERIAL };

/** A render input as the tests write it: the material source defaults to TEST_MATERIAL. */
type TestInput = UserDataInput extends infer U ? (U extends unknown ? Omit<U, 'material'> & { material?: MaterialSource } : never) : never;
const withMaterial = (i: TestInput): UserDataInput => ({ ...i, material: i.material ?? TEST_MATERIAL }) as UserDataInput;

/**
 * What the node has on its disk once its first boot fetched its material: the user-data's files and its secrets in
 * one document of its image's format (the product never makes such a user-data: renderNode keeps them apart). Tests
 * read a node's files from it, and the simulated servers of the simulator's own tests boot from it.
 */
export function renderUserData(spec: ClusterSpec, input: TestInput): string {
  const i = withMaterial(input);
  validateUserDataInput(i);
  const cfg = nodeConfig(spec, i);
  return userDataFormat(cfg.image) === 'ignition' ? renderIgnition(cfg) : renderCloudConfig(cfg);
}

/** The product's render of a test input: the user-data (no secret) and the material apart. */
export const renderTestNode = (spec: ClusterSpec, input: TestInput) => renderNode(spec, withMaterial(input));

export function workerUserData(over: Partial<UserDataInput> = {}, labels: Record<string, string> = {}): string {
  const { spec } = parseClusterSpec(input({ labels: { kube_tag: 'v1.35.2', ...labels } }));
  return renderUserData(spec, { ...endpointAndToken, role: 'worker', nodeName: 'k1-5d12f-worker-b0000', caCert: pki.ca.cert, ...over } as UserDataInput);
}

/** The first kubeadm document of a #cloud-config's config file. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const joinConfig = (text: string): any => parseAllDocuments(cloudConfigFiles(text).get('/etc/kubernetes/kubeadm/config.yaml')!.content).map((d) => d.toJS())[0];
