// A cluster's whole life through the API against the simulated cloud and its simulated Kubernetes
// APIs, driven by real workers: what the lifecycle, chaos and parallel suites share.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { AuditedResource } from '../../cloudsim/audit.js';
import { generateKeyPairSync } from 'node:crypto';
import { KubeClient } from '../../src/kube/api-client.js';
import { x509 } from '../../src/pki/keys.js';
import { startWorker, type WorkerOptions } from '../../workers/main.js';
import { OPERATIONS_QUEUE } from '../../src/operations/queue.js';
import { testApp, type TestApp, type TestAppOptions } from '../support/app.js';

export interface Harness {
  t: TestApp;
  project: string;
  templates: { v135: string; v136: string };
  /** What the project held before any cluster (seeded images, ...). */
  baseline: Set<string>;
  workerOptions(extra?: Partial<WorkerOptions>): WorkerOptions;
  close(): Promise<void>;
}

export async function harness(opts: { roomy?: boolean; timeScale?: number; listen?: boolean } & Pick<TestAppOptions, 'clock' | 'cloudSeed' | 'config' | 'keystoneHooks' | 'logStream'> = {}): Promise<Harness> {
  const { roomy: _roomy, ...app } = opts;
  const t = await testApp({ cloud: true, ...app, listen: opts.listen ?? false });
  const connections: Redis[] = [];
  const template = async (name: string, kubeTag: string) => {
    const res = await t.as('demo', {
      method: 'POST',
      url: '/v1/clustertemplates',
      payload: {
        name, coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', flavor_id: 'm1.small', master_flavor_id: 'm1.medium',
        master_lb_enabled: true, floating_ip_enabled: true, network_driver: 'calico', labels: { kube_tag: kubeTag },
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json().uuid as string;
  };
  const templates = { v135: await template('k8s-135', 'v1.35.1'), v136: await template('k8s-136', 'v1.36.0') };
  const project = t.keystone.state.findProjectByName('demo', 'default')!.id;
  if (opts.roomy) {
    // Room for many clusters at once: the default quotas are the seed's (10 instances, 10 routers, ...).
    const nova = t.cloud!.nova;
    nova.defaultQuota = { ...nova.defaultQuota, instances: -1, cores: -1, ram: -1, server_groups: -1, server_group_members: -1 };
    for (const k of ['network', 'subnet', 'port', 'router', 'floatingip', 'security_group', 'security_group_rule']) {
      (t.cloud!.neutron.defaultQuotas as Record<string, number>)[k] = -1;
    }
  }
  const baseline = new Set(t.cloud!.sims.audit(project).projects.flatMap((p) => p.resources).map((r) => `${r.service}:${r.type}:${r.id}`));
  return {
    t,
    project,
    templates,
    baseline,
    workerOptions: (extra = {}) => ({
      redisUrl: process.env.REDIS_URL!,
      concurrency: 4,
      heartbeatMs: 1000,
      prefix: t.config.queuePrefix,
      db: t.app.services.db,
      config: t.config,
      lockDurationMs: 1000,
      stalledIntervalMs: 300,
      healthIntervalMs: 0,
      runner: { lockRetryMs: 50, pollMs: 20, backoff: { baseMs: 20, maxMs: 300, maxRetries: 30 } },
      ...extra,
    }),
    async close() {
      const connection = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: null });
      const q = new Queue(OPERATIONS_QUEUE, { connection, prefix: t.config.queuePrefix });
      await q.obliterate({ force: true }).catch(() => undefined);
      await q.close();
      // A connection handed to BullMQ stays open after close(): left, it keeps the test process alive.
      connection.disconnect();
      for (const c of connections) c.disconnect();
      await t.close();
    },
  };
}

/**
 * A test file's harness and one worker, made before its tests and closed after them. `set` receives
 * the harness (and may prepare more, awaited before the worker starts): a file's own top-level
 * `before` hook is not ordered after this one.
 */
export function withHarness(set: (h: Harness) => unknown, opts: Parameters<typeof harness>[0] = {}): void {
  let h: Harness | undefined;
  let worker: Awaited<ReturnType<typeof startWorker>> | undefined;
  before(async () => {
    h = await harness(opts);
    await set(h);
    worker = await startWorker(h.workerOptions());
  });
  after(async () => {
    await worker?.close();
    await h?.close();
  });
}

export async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export async function api(h: Harness, method: string, url: string, payload?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Json }> {
  const res = await h.t.as('demo', { method: method as 'GET', url, ...(payload !== undefined ? { payload: payload as Json } : {}), headers: { 'OpenStack-API-Version': 'container-infra latest', ...headers } });
  return { status: res.statusCode, body: res.body ? (JSON.parse(res.body) as Json) : {} };
}

/** The cluster once its status leaves *_IN_PROGRESS; fails the test with the reason when it is not `want`. */
export async function settled(h: Harness, uuid: string, want: string, timeoutMs = 90_000): Promise<Json> {
  let last: Json = {};
  const c = await until(`cluster ${uuid} to settle`, async () => {
    const r = await api(h, 'GET', `/v1/clusters/${uuid}`);
    last = r.body;
    return r.status === 200 && !String(r.body.status).endsWith('_IN_PROGRESS') ? r.body : undefined;
  }, timeoutMs).catch((e: Error) => {
    const agents = [...servers(h, uuid).values()].map((s) => JSON.stringify(h.t.cloud!.sims.kube.joinStatus(s.id) ?? null));
    throw new Error(`${e.message}: still ${last.status} (${last.status_reason}); kubeadm: ${agents.join(' ')}`);
  });
  assert.equal(c.status, want, `status_reason: ${c.status_reason}`);
  return c;
}

/** A client's retry: the API answers 503 while the cloud behind it does (fault tests). */
export async function apiRetrying(h: Harness, method: string, url: string, payload?: unknown): Promise<{ status: number; body: Json }> {
  for (let i = 0; ; i++) {
    const r = await api(h, method, url, payload);
    if (r.status !== 503 || i >= 60) return r;
    // A 503 (the API's database, queue or a cloud service busy): again, as a client honouring Retry-After would.
    await new Promise((res) => setTimeout(res, Math.min(1000, 50 * 2 ** i)));
  }
}

export async function createCluster(h: Harness, name: string, masters: number, workers: number): Promise<string> {
  const r = await apiRetrying(h, 'POST', '/v1/clusters', { cluster_template_id: h.templates.v135, name, master_count: masters, node_count: workers });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  return r.body.uuid as string;
}

export async function deleteCluster(h: Harness, uuid: string, timeoutMs = 90_000): Promise<void> {
  const r = await apiRetrying(h, 'DELETE', `/v1/clusters/${uuid}`);
  assert.equal(r.status, 204, JSON.stringify(r.body));
  await until(`cluster ${uuid} to be gone`, async () => (await api(h, 'GET', `/v1/clusters/${uuid}`)).status === 404, timeoutMs);
}

/** The project's live resources in the whole simulated cloud beyond what it held before any cluster (Keystone's excepted). */
export function leftovers(h: Harness): AuditedResource[] {
  const audit = h.t.cloud!.sims.audit(h.project);
  return audit.projects.flatMap((p) => p.resources).filter((r) => r.service !== 'keystone' && !h.baseline.has(`${r.service}:${r.type}:${r.id}`) && !(r.type === 'security_group' && r.name === 'default'));
}

/** The cluster's node ports (tagged with it) that no live server of it holds: ports left behind. */
export function strayPorts(h: Harness, uuid: string): string[] {
  const live = servers(h, uuid);
  return h.t.cloud!.sims.audit(h.project).projects.flatMap((p) => p.resources)
    .filter((r) => r.type === 'port' && (r.tags ?? []).includes(`magnum-cluster=${uuid}`) && !live.has(r.name ?? ''))
    .map((r) => r.name ?? r.id);
}

/** The cluster's live servers, by name; fails on two live servers with one name (a duplicate boot). */
export function servers(h: Harness, uuid: string): Map<string, { id: string; metadata: Record<string, string> }> {
  const out = new Map<string, { id: string; metadata: Record<string, string> }>();
  for (const s of h.t.cloud!.nova.servers.values()) {
    if (s.vmState === 'deleted' || !s.tags.includes(`magnum-cluster=${uuid}`)) continue;
    assert.ok(!out.has(s.name), `two live servers named ${s.name}`);
    out.set(s.name, { id: s.id, metadata: s.metadata });
  }
  return out;
}

export { startWorker };

/** Runs `fn` with the service of catalog type `type` taken out of the cloud's catalog (put back afterwards). */
export async function withoutService<T>(h: Harness, type: string, fn: () => Promise<T>): Promise<T> {
  const catalog = h.t.keystone.state.catalog;
  const service = catalog.services.find((x) => x.type === type);
  assert.ok(service, `the catalog has ${type}`);
  const entry = { type: service.type, name: service.name, url: service.endpoints[0]!.url };
  catalog.remove(type);
  try {
    return await fn();
  } finally {
    catalog.upsert(entry);
  }
}

/**
 * A client of the cluster's Kubernetes API as its user gets one (`openstack coe cluster config`): a key
 * made here, its CSR (CN=admin, O=system:masters) signed by POST /v1/certificates, the CA from GET; the
 * connection routed as the simulator routes the API address.
 */
export async function userKubeClient(h: Harness, uuid: string): Promise<KubeClient> {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const keys = {
    privateKey: await crypto.subtle.importKey('pkcs8', privateKey.export({ type: 'pkcs8', format: 'der' }), { name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign']),
    publicKey: await crypto.subtle.importKey('spki', publicKey.export({ type: 'spki', format: 'der' }), { name: 'ECDSA', namedCurve: 'P-256' }, true, ['verify']),
  };
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=admin, O=system:masters', keys: keys as never, signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' } });
  const signed = await api(h, 'POST', '/v1/certificates', { cluster_uuid: uuid, csr: csr.toString('pem') });
  assert.equal(signed.status, 201, JSON.stringify(signed.body));
  const ca = (await api(h, 'GET', `/v1/certificates/${uuid}`)).body.pem as string;
  const c = (await api(h, 'GET', `/v1/clusters/${uuid}`)).body;
  return new KubeClient({
    server: c.api_address as string, caCerts: [ca], clientCert: signed.body.pem as string, clientKey: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    connect: async (host, port) => h.t.cloud!.sims.kube.resolve(host, port), limits: { timeoutMs: 5000 },
  });
}
