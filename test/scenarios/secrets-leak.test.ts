// Proof that secrets never leak (issue 15): one realistic run through the API with the simulated cloud and
// a worker — a cluster created, its CA read and a client certificate signed, its credential rotated (the
// worker handing it to the cluster's Secrets and deleting the old one), a resize, the delete, and a few
// refused requests on the way — while every log line of the API (pino, at
// trace) and of the worker (its console), every event, status reason and operation error in the
// database, and every API response (headers and body) is kept. Then each secret the run used is looked
// for in all of it, raw and in the encodings it could hide in (JSON-escaped, URL-encoded, base64): the
// users' and the service's passwords, every token Keystone issued, every application-credential secret,
// the kubeadm bootstrap tokens, the sealing key, the cluster's CA and service-account private keys and
// the private key behind the signed client certificate. None may appear.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { BUILTIN_USERS, SERVICE_USER } from '../../cloudsim/embedded.js';
import { ClusterEntity, type ClusterRow } from '../../src/db/entities/cluster.js';
import { loadClusterPki } from '../../src/pki/store.js';
import { x509 } from '../../src/pki/keys.js';
import { CloudFactory } from '../../src/steps/cloud.js';
import { bootstrapToken } from '../../workers/cluster/servers.js';
import { startWorker } from '../../workers/main.js';
import type { RunContext } from '../../src/steps/step.js';
import { harness, settled, until, type Harness } from '../workers/lifecycle-support.js';

/** Everything the run wrote where a secret must not be: [where, text]. */
const corpus: [string, string][] = [];
/** Every secret the run used: [what, value]. */
const secrets = new Map<string, string>();
const secret = (what: string, value: string | undefined | null) => {
  if (value) secrets.set(value, what);
};

const apiLogs = new Writable({
  write(chunk: Buffer, _enc, done) {
    corpus.push(['API log', chunk.toString('utf8')]);
    done();
  },
});

// The worker, the runner and the API's services log through the console: keep what they write.
const CONSOLE = ['log', 'info', 'warn', 'error', 'debug'] as const;
const original = Object.fromEntries(CONSOLE.map((m) => [m, console[m]])) as Record<(typeof CONSOLE)[number], (...a: unknown[]) => void>;
function captureConsole(): void {
  for (const m of CONSOLE) {
    console[m] = (...args: unknown[]) => {
      corpus.push([`console.${m}`, args.map((a) => (typeof a === 'string' ? a : a instanceof Error ? `${a.stack}` : JSON.stringify(a))).join(' ')]);
    };
  }
}
function restoreConsole(): void {
  for (const m of CONSOLE) console[m] = original[m];
}

/** What Keystone issued: every token (X-Subject-Token of a login) and every application-credential secret. */
function watchKeystone(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const subject = reply.getHeader('x-subject-token');
    if (request.method === 'POST' && request.url.startsWith('/v3/auth/tokens') && typeof subject === 'string') secret('a Keystone token', subject);
    if (request.method === 'POST' && /\/application_credentials$/.test(request.url) && typeof payload === 'string' && reply.statusCode === 201) {
      secret('an application-credential secret', (JSON.parse(payload) as { application_credential: { secret: string } }).application_credential.secret);
    }
    return payload;
  });
}

let h: Harness;
let worker: Awaited<ReturnType<typeof startWorker>> | undefined;

before(async () => {
  captureConsole();
  h = await harness({ keystoneHooks: watchKeystone, logStream: apiLogs, config: (c) => { c.logLevel = 'trace'; } });
  worker = await startWorker(h.workerOptions());
});
after(async () => {
  await worker?.close();
  await h?.close();
  restoreConsole();
});

/** An API call as `demo` (or with `token`), its answer kept. */
async function call(opts: InjectOptions & { token?: string }): Promise<{ status: number; body: any }> {
  const { token, ...inject } = opts;
  const headers = { 'openstack-api-version': 'container-infra latest', ...(token !== undefined ? { 'x-auth-token': token } : {}), ...(inject.headers ?? {}) };
  const res = token !== undefined ? await h.t.app.inject({ ...inject, headers }) : await h.t.as('demo', { ...inject, headers });
  corpus.push([`${inject.method} ${inject.url} → ${res.statusCode}`, `${JSON.stringify(res.headers)}\n${res.body}`]);
  return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined };
}

/** The database's free text: events, status reasons, operation errors. */
async function snapshotDb(): Promise<void> {
  const db = h.t.app.services.db;
  for (const q of [
    'SELECT reason, message FROM cluster_event',
    'SELECT kind, state, error FROM operation',
    'SELECT status_reason, health_status_reason::text AS health, conditions::text AS conditions FROM cluster',
    'SELECT status_reason FROM nodegroup',
  ]) {
    for (const r of await db.query(q)) corpus.push([q, JSON.stringify(r)]);
  }
}

const row = (uuid: string): Promise<ClusterRow> => h.t.app.services.db.getRepository(ClusterEntity).findOneByOrFail({ uuid });

/** The cluster's private keys and the bootstrap tokens of its operations so far, as the worker derived them. */
async function clusterSecrets(uuid: string): Promise<void> {
  const { db, secretBox } = h.t.app.services;
  const stored = await loadClusterPki(db, secretBox, uuid);
  assert.ok(stored, 'the cluster has its PKI');
  const { pki } = stored;
  secret('the Kubernetes CA key', pki.ca.key);
  secret('the etcd CA key', pki.etcdCa.key);
  secret('the front-proxy CA key', pki.frontProxyCa.key);
  secret('the service-account key', pki.serviceAccount.key);
  const cluster = await row(uuid);
  const factory = new CloudFactory(h.t.config);
  secret('the application-credential secret', factory.credentialSecret(cluster));
  const ops: { id: string }[] = await db.query('SELECT id FROM operation WHERE cluster_id = $1', [uuid]);
  for (const op of ops) secret('a kubeadm bootstrap token', bootstrapToken({ cloudFactory: factory, cluster, op } as unknown as RunContext));
}

test('a cluster run through the API and a worker leaks no secret into logs, events or responses', async () => {
  for (const [user, { password }] of Object.entries(BUILTIN_USERS)) secret(`${user}'s password`, password);
  secret("the service user's password", SERVICE_USER.password);
  for (const key of h.t.config.secretKeys) secret('the sealing key', key.toString('base64'));

  // Refused requests log too.
  assert.equal((await call({ method: 'GET', url: '/v1/clusters', token: 'not-a-token' })).status, 401);
  const reader = await h.t.token('demo-reader');
  assert.equal((await call({ method: 'POST', url: '/v1/clusters', token: reader, payload: { cluster_template_id: h.templates.v135 } })).status, 403);

  const made = await call({ method: 'POST', url: '/v1/clusters', payload: { cluster_template_id: h.templates.v135, name: 'leak', master_count: 1, node_count: 1 } });
  assert.equal(made.status, 202, JSON.stringify(made.body));
  // Cloud failures on the worker's way, so that errors are logged and retried too.
  const faults = h.t.cloud!.sims.faults;
  const removers = [
    faults.nova.inject({ operation: 'POST /servers', action: 'error', status: 503, times: 1 }),
    faults.neutron.inject({ method: 'POST', action: 'error', status: 500, times: 1 }),
    faults.octavia.inject({ method: 'GET', action: 'error', status: 502, times: 1 }),
  ];
  const uuid = made.body.uuid as string;
  await settled(h, uuid, 'CREATE_COMPLETE');
  for (const remove of removers) remove();
  assert.ok(corpus.some(([w, text]) => w.startsWith('console.') && /retryable/.test(text)), 'the worker logged the retried cloud failures');
  await clusterSecrets(uuid);
  await snapshotDb();

  // What `openstack coe cluster config` does: the CA, then a client certificate for a key made here.
  assert.equal((await call({ method: 'GET', url: `/v1/clusters/${uuid}` })).status, 200);
  assert.equal((await call({ method: 'GET', url: `/v1/certificates/${uuid}` })).status, 200);
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  secret('the client certificate key', privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
  const keys = {
    privateKey: await crypto.subtle.importKey('pkcs8', privateKey.export({ type: 'pkcs8', format: 'der' }), { name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign']),
    publicKey: await crypto.subtle.importKey('spki', publicKey.export({ type: 'spki', format: 'der' }), { name: 'ECDSA', namedCurve: 'P-256' }, true, ['verify']),
  };
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=admin, O=system:masters', keys: keys as never, signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' } });
  assert.equal((await call({ method: 'POST', url: '/v1/certificates', payload: { cluster_uuid: uuid, csr: csr.toString('pem') } })).status, 201);
  assert.equal((await call({ method: 'POST', url: '/v1/certificates', payload: { cluster_uuid: uuid, csr: 'garbage' } })).status, 400);

  const before = (await row(uuid)).app_cred_id;
  assert.equal((await call({ method: 'PATCH', url: `/v1/credentials/${uuid}`, headers: { 'content-type': 'application/octet-stream' } })).status, 202);
  assert.notEqual((await row(uuid)).app_cred_id, before, 'a new credential');
  await clusterSecrets(uuid);
  // The rotation is an operation: the worker hands the new credential to the cluster, then deletes the old one.
  await settled(h, uuid, 'UPDATE_COMPLETE');

  assert.equal((await call({ method: 'POST', url: `/v1/clusters/${uuid}/actions/resize`, payload: { node_count: 2 } })).status, 202);
  await settled(h, uuid, 'UPDATE_COMPLETE');
  await clusterSecrets(uuid);
  await snapshotDb();
  assert.equal((await call({ method: 'GET', url: `/v1/clusters/${uuid}/events` })).status, 200);
  assert.equal((await call({ method: 'GET', url: `/v1/clusters/${uuid}/nodegroups` })).status, 200);

  assert.equal((await call({ method: 'DELETE', url: `/v1/clusters/${uuid}` })).status, 204);
  // The delete's events go with the cluster's rows: read them through the API while it runs.
  await until('the cluster to be gone', async () => {
    await snapshotDb();
    await call({ method: 'GET', url: `/v1/clusters/${uuid}/events` });
    return (await call({ method: 'GET', url: `/v1/clusters/${uuid}` })).status === 404;
  }, 90_000);

  assert.ok(secrets.size >= 15, `secrets collected: ${[...secrets.values()].join(', ')}`);
  assert.ok([...secrets.values()].filter((w) => w === 'a Keystone token').length >= 3, 'tokens of users, the service and the cluster were issued');
  assert.ok(corpus.filter(([w]) => w === 'API log').length > 20, 'the API logged');
  assert.ok(corpus.some(([w]) => w.startsWith('console.')), 'the worker logged');
  const leaks: string[] = [];
  for (const [value, what] of secrets) {
    for (const needle of variants(value)) {
      const hit = corpus.find(([, text]) => text.includes(needle));
      if (hit) {
        // What comes before it, not the secret itself: the test's output is a log too.
        leaks.push(`${what} in ${hit[0]}: …${hit[1].slice(Math.max(0, hit[1].indexOf(needle) - 80), hit[1].indexOf(needle))}<here>`);
        break;
      }
    }
  }
  assert.deepEqual(leaks, []);
});

/**
 * The forms a secret could take in a log or body: itself (for a PEM, each line of its body: a key may be
 * logged in part or with escaped newlines), JSON-escaped, URL-encoded, and base64 at each of the three
 * alignments it could have inside a larger encoded blob (a Secret's data, a cloud.conf).
 */
function variants(value: string): string[] {
  const out = new Set<string>();
  const pem = /-----BEGIN [A-Z ]+-----/.test(value);
  const parts = pem ? value.split('\n').filter((l) => l.length >= 40 && !l.startsWith('-----')) : [value];
  for (const part of parts) {
    out.add(part);
    // A long secret logged in part (a "prefix for debugging"): its start, middle and end.
    if (!pem && part.length >= 48) for (const at of [0, (part.length >> 1) - 12, part.length - 24]) out.add(part.slice(at, at + 24));
    out.add(JSON.stringify(part).slice(1, -1));
    out.add(encodeURIComponent(part));
    for (let pad = 0; pad < 3; pad++) {
      const b64 = Buffer.from(`${'x'.repeat(pad)}${part}`).toString('base64');
      // Drop the characters that depend on what comes before or after the secret.
      const inner = b64.slice(pad === 0 ? 0 : 4, -4);
      if (inner.length >= 12) out.add(inner);
    }
  }
  return [...out].filter((v) => v.length >= 8);
}
