// Shared by the user-data tests: a worker's user-data of a v1.35.2 cluster (the image, labels and node settings
// given), and the kubeadm JoinConfiguration it carries.
import { parseAllDocuments } from 'yaml';
import type { UserDataInput } from '../../src/bootstrap/user-data/inputs.js';
import { renderUserData } from '../../src/bootstrap/user-data/userdata.js';
import { parseClusterSpec } from '../../src/cluster-spec/parse.js';
import { cloudConfigFiles } from './node-files.js';
import { input, pki, TOKEN } from './spec-fixtures.js';

export const endpointAndToken = { endpoint: { address: '10.0.0.10' }, bootstrapToken: TOKEN };

export function workerUserData(over: Partial<UserDataInput> = {}, labels: Record<string, string> = {}): string {
  const { spec } = parseClusterSpec(input({ labels: { kube_tag: 'v1.35.2', ...labels } }));
  return renderUserData(spec, { ...endpointAndToken, role: 'worker', nodeName: 'k1-5d12f-worker-b0000', caCert: pki.ca.cert, ...over } as UserDataInput);
}

/** The first kubeadm document of a #cloud-config's config file. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const joinConfig = (text: string): any => parseAllDocuments(cloudConfigFiles(text).get('/etc/kubernetes/kubeadm/config.yaml')!.content).map((d) => d.toJS())[0];
