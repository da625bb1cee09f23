// A RunContext for step tests with no PostgreSQL and no Redis: the ledger, the repositories a step reads and
// writes (ctx.repos), the cluster's certificates (what ctx.ds is asked for), conditions, events and logs are
// kept in memory (test/support/memory-db.ts); memo and memoRuns as the runner keeps them; a checkpoint that never
// stops (unless a test says so). The cloud is real: Keystone and every simulated service started in-process
// (cloudsim), and the cluster's own clients (src/steps/cloud.ts) logged in with an application credential made for
// it in a project of its own, so what a step makes is what the simulator holds (sims.usage, sims.audit).
import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CloudSims } from '../../cloudsim/cloud.js';
import { SERVICE_USER } from '../../cloudsim/embedded.js';
import type { KeystoneSim } from '../../cloudsim/keystone/index.js';
import type { ProjectUsage } from '../../cloudsim/usage.js';
import { loadConfig } from '../../src/config.js';
import type { ClusterTemplateRow } from '../../src/db/entities/cluster-template.js';
import type { ClusterRow } from '../../src/db/entities/cluster.js';
import type { NodeGroupRow } from '../../src/db/entities/nodegroup.js';
import type { OperationRow } from '../../src/db/entities/operation.js';
import type { Condition, ConditionType } from '../../src/domain/cluster-status.js';
import type { OperationKind } from '../../src/domain/operations.js';
import { generateClusterPki } from '../../src/pki/ca.js';
import { storeClusterPki } from '../../src/pki/store.js';
import { CloudFactory, type Cloud, type WorkerCloudConfig } from '../../src/steps/cloud.js';
import { StepFailure, Wait } from '../../src/steps/errors.js';
import type { RunContext, RunnerHooks, Step } from '../../src/steps/step.js';
import { createOperation } from '../../workers/cluster/create.js';
import { startKeystone, startSims, TEST_SECRET_KEY } from './app.js';
import { MemoryDb, memoryDataSource, MemoryLedger, memoryNodeMaterial, memoryRepos } from './memory-db.js';
import { createServer } from 'node:http';
import { takeNodeMaterial } from '../../src/clusters/node-material.js';
import { ApiError } from '../../src/domain/errors.js';
import type { NodeMaterialRow } from '../../src/db/entities/node-material.js';

export { MemoryDb, MemoryLedger };

// ---- the cloud ------------------------------------------------------------------------------------------

export interface StepCloud {
  keystone: KeystoneSim;
  sims: CloudSims;
  /** What a worker's CloudFactory is made from, pointed at this Keystone. */
  config: WorkerCloudConfig;
  factory: CloudFactory;
  /** The nodes' one-time material the runs mint, which their first boot takes through the real use case. */
  material: Map<string, NodeMaterialRow>;
  close(): Promise<void>;
}

/** POST /bootstrap/v1/material on a loopback port: src/clusters/node-material.ts over the in-memory material. */
async function materialServer(material: Map<string, NodeMaterialRow>, factory: CloudFactory): Promise<{ url: string; close(): Promise<void> }> {
  const deps = { nodeMaterial: memoryNodeMaterial(material), events: { insert: async () => undefined }, secretBox: factory.secretBox };
  const server = createServer((req, res) => {
    const bearer = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    const serverId = typeof req.headers['x-server-id'] === 'string' ? req.headers['x-server-id'] : undefined;
    takeNodeMaterial(deps, { token: bearer, serverId, peer: req.socket.remoteAddress ?? '' }).then(
      (taken) => res.writeHead(200, { 'content-type': 'text/plain' }).end(taken.lines),
      (e: unknown) => res.writeHead(e instanceof ApiError ? e.status : 500).end(e instanceof Error ? e.message : ''),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** Keystone and the simulated services on loopback (transitions 1000 times faster than real by default). */
export async function startStepCloud(opts: { timeScale?: number } = {}): Promise<StepCloud> {
  const keystone = await startKeystone();
  const sims = await startSims(keystone, opts.timeScale ?? 0.001);
  const authUrl = `http://127.0.0.1:${(keystone.app.server.address() as AddressInfo).port}/v3`;
  // Nothing connects to PostgreSQL or Redis: their URLs only satisfy the configuration's checks.
  const config = loadConfig({
    DATABASE_URL: 'postgres://unused@127.0.0.1:1/unused',
    REDIS_URL: 'redis://127.0.0.1:1',
    KEYSTONE_URL: authUrl,
    SERVICE_PASSWORD: SERVICE_USER.password,
    SECRET_KEYS: TEST_SECRET_KEY,
    OPENSTACK_TIMEOUT_MS: '5000',
  });
  const factory = new CloudFactory(config);
  // The nodes' first boot fetches their secrets: the real use case over the runs' material, on a loopback port.
  const material = new Map<string, NodeMaterialRow>();
  const server = await materialServer(material, factory);
  config.nodeMaterial.url = server.url;
  return {
    keystone,
    sims,
    config,
    factory,
    material,
    async close() {
      await sims.close();
      await keystone.app.close();
      await server.close();
    },
  };
}

// ---- a cluster and a run of one of its operations ------------------------------------------------------------

export interface GroupShape {
  name?: string;
  role?: 'master' | 'worker';
  count: number;
  flavor?: string;
  docker_volume_size?: number | null;
  is_default?: boolean;
  extra?: Partial<NodeGroupRow>;
}

export interface ClusterShape {
  name?: string;
  /** The template's fields (labels included) over the defaults (calico, m1.small/m1.medium, ubuntu-24.04, v1.35.1). */
  template?: Partial<ClusterTemplateRow>;
  /** The cluster's own fields over the template's (fixed_network, labels, ...). */
  cluster?: Partial<ClusterRow>;
  masters?: number;
  workers?: number;
  /** More node groups beside the defaults. */
  groups?: GroupShape[];
  /** The operation the run is of (default a create). */
  op?: { kind?: OperationKind; params?: Record<string, unknown> };
  /** Default true: an application credential in Keystone, sealed in the row. */
  credential?: boolean;
  /** Default true: the cluster's CAs in the (memory) certificate table. */
  pki?: boolean;
}

export interface Recorded {
  conditions: { type: ConditionType; status: Condition['status']; reason: string; message: string }[];
  events: { type: string; reason: string; message: string; severity: string }[];
  logs: { msg: string; extra: Record<string, unknown> }[];
}

export interface StepRun {
  cloud: StepCloud;
  /** The cluster's own Keystone project (made for it): what the simulator's usage and audit are read for. */
  project: string;
  uuid: string;
  db: MemoryDb;
  ledger: MemoryLedger;
  /** The context of the current run; `fresh()` starts another. */
  ctx: RunContext;
  recorded: Recorded;
  /** Hooks every run gets (afterCreate: a crash between the cloud's answer and the record). */
  hooks: RunnerHooks;
  /** Called by every checkpoint; throw Stop here to play a lost lock. */
  checkpoint: () => Promise<void>;
  /** The memo of the current run (seed it to give a step a stand-in, e.g. `kube`). */
  memos: Map<string, Promise<unknown>>;
  /** The memoRuns kept across the operation's runs. */
  runs: Map<string, Promise<unknown>>;
  /** A new run of the same operation (memo emptied, what the last run opened released; memoRuns kept as the runner keeps them). */
  fresh(): RunContext;
  /** A new operation of the cluster, with an id of its own as the API begins one; the runs are of it from now on. */
  begin(kind: OperationKind, params?: Record<string, unknown>): RunContext;
  /** Runs `step` to its end: each Wait is a new run after a short pause; any other error is thrown. */
  run(step: Step, opts?: { timeoutMs?: number }): Promise<{ runs: number }>;
  /** One run of `step`: its Wait or failure thrown. */
  once(step: Step): Promise<void>;
  /** The cluster's clients (its credential). */
  clients(): Cloud;
  usage(): ProjectUsage;
  /** What the project holds in the simulated cloud: `service:type:id` → type (Keystone's left out). */
  audit(): Map<string, string>;
  end(): void;
}

let projects = 0;

function templateRow(project: string, user: string, t: Partial<ClusterTemplateRow> = {}): ClusterTemplateRow {
  return {
    id: 1, uuid: randomUUID(), name: `tpl-${randomUUID().slice(0, 8)}`, project_id: project, user_id: user,
    coe: 'kubernetes', image_id: 'ubuntu-24.04', flavor_id: 'm1.small', master_flavor_id: 'm1.medium', keypair_id: null,
    dns_nameserver: null, external_network_id: 'public', fixed_network: null, fixed_subnet: null, network_driver: 'calico',
    volume_driver: null, apiserver_port: null, docker_volume_size: null, docker_storage_driver: null, cluster_distro: 'ubuntu',
    http_proxy: null, https_proxy: null, no_proxy: null, insecure_registry: null, registry_enabled: false, tls_disabled: false,
    public: false, master_lb_enabled: true, floating_ip_enabled: true, hidden: false, server_type: 'vm',
    created_at: new Date(), updated_at: null,
    ...t,
    labels: { kube_tag: 'v1.35.1', ...(t.labels ?? {}) },
    tags: t.tags ?? null,
  } as ClusterTemplateRow;
}

function nodeGroupRow(c: ClusterRow, t: ClusterTemplateRow, id: number, g: GroupShape): NodeGroupRow {
  const role = g.role ?? 'worker';
  return {
    id, uuid: randomUUID(), name: g.name ?? `default-${role}`, cluster_id: c.uuid, project_id: c.project_id,
    docker_volume_size: g.docker_volume_size !== undefined ? g.docker_volume_size : c.docker_volume_size, labels: { ...c.labels },
    flavor_id: g.flavor ?? (role === 'master' ? c.master_flavor_id : c.flavor_id), image_id: t.image_id, node_addresses: [],
    node_count: g.count, role, min_node_count: role === 'master' ? 1 : 0, max_node_count: null, is_default: g.is_default ?? g.name === undefined,
    stack_id: null, status: 'CREATE_IN_PROGRESS', status_reason: null, version: null, node_labels: null, node_taints: null,
    created_at: new Date(), updated_at: null,
    ...g.extra,
  };
}

/** A cluster of `shape` in a project of its own, and the context of a run of its operation. */
export async function stepRun(cloud: StepCloud, shape: ClusterShape = {}): Promise<StepRun> {
  const ks = cloud.keystone.state;
  const project = ks.createProject(`steps-${process.pid}-${++projects}-${randomBytes(3).toString('hex')}`);
  const user = ks.userId('demo');
  ks.assignRole(user, project, 'member');
  const db = new MemoryDb(cloud.material);
  const t = templateRow(project, user, shape.template);
  db.templates.set(t.uuid, t);
  const uuid = randomUUID();
  const now = new Date();
  const c: ClusterRow = {
    id: 1, uuid, name: shape.name ?? 'steps', project_id: project, user_id: user, cluster_template_id: t.uuid, keypair: null,
    docker_volume_size: t.docker_volume_size, labels: { ...t.labels, ...(shape.cluster?.labels ?? {}) }, master_flavor_id: t.master_flavor_id, flavor_id: t.flavor_id,
    create_timeout: 60, discovery_url: null, stack_id: null, status: 'CREATE_IN_PROGRESS', status_reason: null, health_status: null,
    health_status_reason: null, health_checked_at: null, unhealthy_since: {}, api_address: null, coe_version: null, container_version: null,
    fixed_network: t.fixed_network, fixed_subnet: t.fixed_subnet, floating_ip_enabled: t.floating_ip_enabled, master_lb_enabled: t.master_lb_enabled,
    conditions: {}, app_cred_id: null, app_cred_secret: null, app_cred_user_id: null, retired_app_creds: [], created_at: now, updated_at: null,
    ...shape.cluster,
  } as ClusterRow;
  c.labels = { ...t.labels, ...(shape.cluster?.labels ?? {}) };
  if (shape.credential !== false) {
    const { cred, secret } = await ks.appCreds.create({ userId: user, name: uuid, projectId: project, roleIds: [ks.roleId('member'), ks.roleId('reader')] });
    c.app_cred_id = cred.id;
    c.app_cred_user_id = user;
    c.app_cred_secret = cloud.factory.secretBox.seal(secret, `app-cred:${uuid}`);
  }
  db.clusters.set(uuid, c);
  const groups: GroupShape[] = [{ role: 'master', count: shape.masters ?? 1 }, { role: 'worker', count: shape.workers ?? 1 }, ...(shape.groups ?? [])];
  groups.forEach((g, i) => db.nodegroups.push(nodeGroupRow(c, t, i + 1, g)));
  const ds = memoryDataSource(db);
  if (shape.pki !== false) await storeClusterPki(ds as never, cloud.factory.secretBox, uuid, await generateClusterPki(c));
  const op: OperationRow = {
    id: randomUUID(), cluster_id: uuid, kind: shape.op?.kind ?? 'create', params: (shape.op?.params ?? {}) as OperationRow['params'], state: 'running',
    error: null, attempts: 1, created_at: now, updated_at: null, enqueued_at: now, started_at: now, finished_at: null,
  };
  db.operations.set(op.id, op);
  let opId = op.id;

  const ledger = new MemoryLedger(uuid);
  const repos = memoryRepos(db);
  const recorded: Recorded = { conditions: [], events: [], logs: [] };
  const runs = new Map<string, Promise<unknown>>();
  let releases: (() => void)[] = [];
  const memoIn = <T>(memos: Map<string, Promise<unknown>>, key: string, compute: () => Promise<T>): Promise<T> => {
    let p = memos.get(key) as Promise<T> | undefined;
    if (!p) {
      p = compute();
      memos.set(key, p);
      p.catch(() => memos.delete(key));
    }
    return p;
  };
  const end = () => {
    for (const release of releases.splice(0)) release();
  };

  const out: StepRun = {
    cloud, project, uuid, db, ledger, recorded, runs,
    hooks: {},
    checkpoint: async () => undefined,
    memos: new Map(),
    ctx: undefined as unknown as RunContext,
    fresh() {
      end();
      const memos = new Map<string, Promise<unknown>>();
      out.memos = memos;
      const ctx: RunContext = {
        ds,
        repos,
        // The row as it is now (a run reads it at its start), and the operation.
        cluster: { ...db.clusters.get(uuid)! },
        op: { ...db.operations.get(opId)! },
        ledger,
        cloudFactory: cloud.factory,
        hooks: {
          afterCreate: (type, id) => out.hooks.afterCreate?.(type, id) ?? Promise.resolve(),
          afterCredentialDelete: (id) => out.hooks.afterCredentialDelete?.(id) ?? Promise.resolve(),
        },
        pollMs: 5,
        memo: (key, compute) => memoIn(memos, key, compute),
        memoRuns: (key, compute) => memoIn(runs, key, compute),
        forget: (key) => void memos.delete(key),
        onEnd: (release) => void releases.push(release),
        cloud() {
          const clients = cloud.factory.forCluster(ctx.cluster);
          if (!clients) throw new StepFailure('NoCredential', 'The cluster has no application credential.');
          return clients;
        },
        async setCondition(type, status, reason, message) {
          const row = db.clusters.get(uuid)!;
          const old = row.conditions[type];
          if (old && old.status === status && old.reason === reason && old.message === message) return;
          const since = old && old.status === status ? old.since : new Date().toISOString();
          row.conditions = { ...row.conditions, [type]: { status, reason, message, since } };
          recorded.conditions.push({ type, status, reason, message });
          if (!old || old.status !== status || old.reason !== reason) recorded.events.push({ type, reason, message, severity: status === 'False' ? 'error' : 'info' });
          ctx.cluster = { ...ctx.cluster, conditions: row.conditions };
        },
        checkpoint: () => out.checkpoint(),
        async event(type, reason, message, severity = 'info') {
          recorded.events.push({ type, reason, message, severity });
        },
        log(msg, extra = {}) {
          recorded.logs.push({ msg, extra });
        },
      };
      out.ctx = ctx;
      return ctx;
    },
    begin(kind, params = {}) {
      const next: OperationRow = { ...db.operations.get(opId)!, id: randomUUID(), kind, params: params as OperationRow['params'], created_at: new Date() };
      db.operations.get(opId)!.state = 'succeeded';
      db.operations.set(next.id, next);
      opId = next.id;
      out.runs.clear();
      return out.fresh();
    },
    async once(step) {
      await step.run(out.ctx);
    },
    async run(step, opts = {}) {
      const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
      for (let n = 1; ; n++) {
        try {
          await step.run(out.ctx);
          return { runs: n };
        } catch (e) {
          if (!(e instanceof Wait)) throw e;
          if (Date.now() > deadline) throw new Error(`step ${step.name} still waits after ${opts.timeoutMs ?? 60_000} ms: ${e.why}`);
          await sleep(Math.min(e.ms, 20));
          out.fresh();
        }
      }
    },
    clients: () => out.ctx.cloud(),
    usage: () => cloud.sims.usage(project),
    audit: () =>
      new Map(cloud.sims.audit(project).projects.flatMap((p) => p.resources).filter((r) => r.service !== 'keystone').map((r) => [`${r.service}:${r.type}:${r.id}`, r.type])),
    end,
  };
  out.fresh();
  // Neutron makes a project's default security group on its first use: the project's own, made here, not by a step.
  if (c.app_cred_id) await (await out.clients().neutron()).securityGroups.list({});
  return out;
}

/** `n` resources of the project's audit of `type` (e.g. 'network'), their ids. */
export function audited(run: StepRun, type: string): string[] {
  return [...run.audit()].filter(([, t]) => t === type).map(([key]) => key.split(':')[2]!);
}

/** The live ledger rows of `type`, as [name, cloud id]. */
export async function recordedOf(run: StepRun, type: string): Promise<[string | null, string][]> {
  return (await run.ledger.live(type)).map((r) => [r.name, r.cloud_id]);
}

/** An error thrown by an afterCreate hook: the worker died between the cloud's answer and the ledger's record. */
export class Crash extends Error {
  constructor(readonly type: string) {
    super(`crashed after creating a ${type}`);
  }
}

/** Makes the next create of `type` crash before its record; returns the ids so made. */
export function crashAfterCreate(run: StepRun, type: string): string[] {
  const made: string[] = [];
  run.hooks.afterCreate = async (t, id) => {
    if (t !== type || made.length > 0) return;
    made.push(id);
    throw new Crash(t);
  };
  return made;
}

/**
 * The create graph (workers/cluster/create.ts) run step by step, each to its end, up to and including `through`
 * (every step when absent): a cluster made in the simulated cloud, its Nodes Ready in the simulated Kubernetes.
 */
export async function create(run: StepRun, through?: string): Promise<void> {
  for (const step of createOperation.steps) {
    run.fresh();
    await run.run(step, { timeoutMs: 120_000 });
    if (step.name === through) return;
  }
}

/** Runs `fn` with the service of catalog type `type` out of the catalog (put back afterwards): a cloud without it. */
export async function withoutService<T>(cloud: StepCloud, type: string, fn: () => Promise<T>): Promise<T> {
  const catalog = cloud.keystone.state.catalog;
  const service = catalog.services.find((x) => x.type === type);
  if (!service) throw new Error(`the catalog has no ${type}`);
  const entry = { type: service.type, name: service.name, url: service.endpoints[0]!.url };
  catalog.remove(type);
  try {
    return await fn();
  } finally {
    catalog.upsert(entry);
  }
}

/** What `probe` gives once `done` holds of it (the cloud settles in the background), or what it gives at `timeoutMs`. */
export async function eventually<T>(probe: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (done(v) || Date.now() > end) return v;
    await sleep(10);
  }
}
