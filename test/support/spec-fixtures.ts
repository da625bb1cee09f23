// TEST-ONLY fixtures: the PEMs in pki-fixtures/ were generated once with the openssl CLI for these tests.
// They protect nothing and must never be used outside tests.

import { readFileSync } from 'node:fs';
import type { ControlPlanePki } from '../../src/bootstrap/join.js';
import type { ParseInput } from '../../src/cluster-spec/types.js';

const read = (name: string): string => readFileSync(new URL(`./pki-fixtures/${name}`, import.meta.url), 'utf8');

export const pki: ControlPlanePki = {
  ca: { cert: read('ca.crt'), key: read('ca.key') },
  etcdCa: { cert: read('etcd-ca.crt'), key: read('etcd-ca.key') },
  frontProxyCa: { cert: read('front-proxy-ca.crt'), key: read('front-proxy-ca.key') },
  serviceAccount: { key: read('sa.key'), pub: read('sa.pub') },
};
export const keystoneCa = read('keystone-ca.crt');

export const TOKEN = 'abcdef.0123456789abcdef';
export const UUID = '5d12f6fd-a196-4bf0-ae4c-1f639a523a52';
export const PROJECT = '4c2a3b1e9f8d47a6b5c4d3e2f1a09b8c';

export function input(over: { labels?: ParseInput['labels']; network_driver?: string; cluster?: Partial<ParseInput['cluster']>; template?: Partial<ParseInput['template']> } = {}): ParseInput {
  return {
    template: { coe: 'kubernetes', network_driver: over.network_driver ?? 'calico', master_lb_enabled: true, floating_ip_enabled: true, ...over.template },
    cluster: { uuid: UUID, name: 'k1', project_id: PROJECT, master_count: 3, node_count: 2, ...over.cluster },
    labels: over.labels ?? {},
  };
}
