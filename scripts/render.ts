// Operator tool: render everything for one template + cluster into a folder for inspection.
//   tsx scripts/render.ts --template ct.json --cluster cluster.json [--labels '{"kube_tag":"v1.36.1"}'] [--out dir]
//     [--image '{"os_distro":"fedora-coreos"}'] (the image's Glance properties: the node image contract; default Ubuntu)
// --template/--cluster/--labels take a file path or inline JSON. PKI and token are generated freshly
// (throwaway, for inspection only) unless --pki-dir holds ca.crt/ca.key/etcd-ca.*/front-proxy-ca.*/sa.key/sa.pub.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { ApiError } from '../src/domain/errors.js';
import { nodeImage } from '../src/cluster-spec/image.js';
import { renderCluster } from '../src/bootstrap/render-all.js';
import { parseClusterSpec } from '../src/cluster-spec/parse.js';
import type { ControlPlanePki } from '../src/bootstrap/join.js';

const { values } = parseArgs({
  options: {
    template: { type: 'string' },
    cluster: { type: 'string' },
    labels: { type: 'string' },
    'subnet-cidr': { type: 'string' },
    endpoint: { type: 'string', default: '10.0.0.10' },
    san: { type: 'string', multiple: true, default: [] },
    'pki-dir': { type: 'string' },
    image: { type: 'string' },
    out: { type: 'string', default: 'render-out' },
  },
});

function json(arg: string | undefined, what: string): Record<string, unknown> {
  if (arg === undefined) throw new Error(`--${what} is required (file path or inline JSON)`);
  const text = arg.trim().startsWith('{') ? arg : readFileSync(arg, 'utf8');
  return JSON.parse(text) as Record<string, unknown>;
}

function generatePki(): ControlPlanePki {
  const dir = mkdtempSync(join(tmpdir(), 'render-pki-'));
  const ca = (n: string) => {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, `${n}.key`), '-out', join(dir, `${n}.crt`), '-days', '1', '-subj', `/CN=render-only ${n}`], { stdio: 'ignore' });
    return { cert: readFileSync(join(dir, `${n}.crt`), 'utf8'), key: readFileSync(join(dir, `${n}.key`), 'utf8') };
  };
  execFileSync('openssl', ['genpkey', '-algorithm', 'RSA', '-out', join(dir, 'sa.key')], { stdio: 'ignore' });
  execFileSync('openssl', ['pkey', '-in', join(dir, 'sa.key'), '-pubout', '-out', join(dir, 'sa.pub')], { stdio: 'ignore' });
  return { ca: ca('ca'), etcdCa: ca('etcd-ca'), frontProxyCa: ca('front-proxy-ca'), serviceAccount: { key: readFileSync(join(dir, 'sa.key'), 'utf8'), pub: readFileSync(join(dir, 'sa.pub'), 'utf8') } };
}

function loadPki(dir: string): ControlPlanePki {
  const r = (n: string) => readFileSync(join(dir, n), 'utf8');
  return { ca: { cert: r('ca.crt'), key: r('ca.key') }, etcdCa: { cert: r('etcd-ca.crt'), key: r('etcd-ca.key') }, frontProxyCa: { cert: r('front-proxy-ca.crt'), key: r('front-proxy-ca.key') }, serviceAccount: { key: r('sa.key'), pub: r('sa.pub') } };
}

const alnum = (n: number) => [...randomBytes(n)].map((b) => 'abcdefghijklmnopqrstuvwxyz0123456789'[b % 36]).join('');

try {
  const template = json(values.template, 'template');
  const cluster = json(values.cluster, 'cluster');
  const labels = values.labels ? json(values.labels, 'labels') : ((cluster.labels ?? template.labels ?? {}) as Record<string, unknown>);
  const { spec, warnings } = parseClusterSpec({
    template,
    cluster: cluster as unknown as Parameters<typeof parseClusterSpec>[0]['cluster'],
    labels: labels as Record<string, string>,
    ...(values['subnet-cidr'] ? { subnetCidr: values['subnet-cidr'] } : {}),
  });
  const files = renderCluster(spec, warnings, {
    pki: values['pki-dir'] ? loadPki(values['pki-dir']) : generatePki(),
    bootstrapToken: `${alnum(6)}.${alnum(16)}`,
    endpoint: { address: values.endpoint!, extraSans: values.san! },
    credential: { authUrl: 'https://keystone.example.invalid:5000/v3', region: 'RegionOne', applicationCredentialId: 'APP_CRED_ID', applicationCredentialSecret: 'APP_CRED_SECRET' },
    network: { subnetId: 'SUBNET_ID', ...(typeof template.external_network_id === 'string' ? { floatingNetworkId: template.external_network_id } : {}) },
    ...(values.image ? { image: nodeImage(json(values.image, 'image')) } : {}),
  });
  for (const [name, content] of Object.entries(files)) {
    const path = join(values.out!, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content, { mode: name.startsWith('user-data/') || name.startsWith('cloud-config/') ? 0o600 : 0o644 });
  }
  for (const w of warnings) console.warn(`warning: ${w}`);
  console.log(`rendered ${Object.keys(files).length} files to ${values.out}`);
} catch (e) {
  if (e instanceof ApiError) console.error(`error ${e.status} ${e.id}: ${e.message}`);
  else console.error(`error: ${(e as Error).message}`);
  process.exit(1);
}
