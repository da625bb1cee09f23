// The long-lived collaborators of the API, created once per process (or per test app).
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';
import type { Config } from '../config.js';
import { createDataSource } from '../db/data-source.js';
import { ChangeFeed } from '../db/change-feed.js';
import { ClusterRepo } from '../db/repos/clusters.js';
import { ClusterTemplateRepo } from '../db/repos/cluster-templates.js';
import { ClusterEventRepo } from '../db/repos/events.js';
import { NodeMaterialRepo } from '../db/repos/node-material.js';
import { NodeGroupRepo } from '../db/repos/nodegroups.js';
import { OperationRepo } from '../db/repos/operations.js';
import { ServiceToken } from '../keystone/service-token.js';
import { TokenValidator } from '../keystone/token-validator.js';
import type { CallerClouds } from '../openstack/caller.js';
import { QuotaRepo } from '../db/repos/quotas.js';
import { Preflight } from '../preflight/preflight.js';
import { callerClouds, preflightOf, templateCloud } from '../preflight/of-config.js';
import { warn } from '../process/warn.js';
import type { Billed } from '../preflight/quotas.js';
import type { OperationDeps } from '../operations/begin.js';
import { OperationRelay } from '../operations/outbox.js';
import { OPERATIONS_QUEUE } from '../operations/queue.js';
import { deadline } from '../operations/bounded-close.js';
import { SecretBox } from '../security/secret-box.js';
import { Metrics } from './metrics.js';
import { TemplateCache } from '../db/template-cache.js';
import type { TemplateDeps } from './routes/v1/clustertemplates/service.js';

export interface Services {
  config: Config;
  db: DataSource;
  redis: Redis;
  metrics: Metrics;
  validator: TokenValidator;
  templates: TemplateDeps;
  clusters: ClusterRepo;
  nodegroups: NodeGroupRepo;
  /** The OpenStack clients of a caller (its token and catalog). */
  clouds: CallerClouds;
  /** Seals CA keys and application-credential secrets at rest. */
  secretBox: SecretBox;
  /** Before an operation is accepted: what it names exists, and its bill fits the project's quotas. */
  preflight: Preflight;
  /** What beginOperation writes through: the database, and the relay to wake after a commit. */
  outbox: OperationDeps;
  operations: OperationRepo;
  events: ClusterEventRepo;
  /** The nodes' one-time material (their secrets, fetched at first boot). */
  nodeMaterial: NodeMaterialRepo;
  close(): Promise<void>;
}

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
}

export interface ServicesOptions {
  processMetrics?: boolean;
  /**
   * The create graph's steps (workers/cluster/create.ts): their bills sum to a cluster's footprint. Given by the
   * composition root, since the API does not import the workers.
   */
  steps: readonly Billed[];
}

/** The services of a running API: besides what the routes use, the queue and the relay that feeds it. */
export interface RunningServices extends Services {
  /** The operations queue (jobs are added only by the relay). */
  queue: Queue;
  relay: OperationRelay;
}

export async function createServices(config: Config, opts: ServicesOptions): Promise<RunningServices> {
  const metrics = new Metrics({ processMetrics: opts.processMetrics ?? false });
  const serviceToken = new ServiceToken(config.keystone.authUrl, config.keystone.service, config.keystone.timeoutMs);
  const validator = new TokenValidator(config.keystone, serviceToken, metrics);
  await validator.ready();
  const db = createDataSource(config.databaseUrl, 10, config.db);
  await db.initialize();
  // A Redis outage is logged (ioredis reconnects by itself), not an unhandled 'error' event.
  const redisDown = (e: Error) => warn(config)({ error: e.message }, 'redis connection failed');
  const redis = new Redis(config.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2 });
  redis.on('error', redisDown);
  await redis.connect();
  const cache = new TemplateCache(() => config.templateCache.enabled && feed.healthy, config.templateCache);
  const feed = new ChangeFeed(config.databaseUrl, 'cluster_template_changed', () => cache.invalidate(), { warn: warn(config) });
  if (config.templateCache.enabled) await feed.start();
  const queueConnection = new Redis(config.redisUrl, { maxRetriesPerRequest: null });
  queueConnection.on('error', redisDown);
  const queue = new Queue(OPERATIONS_QUEUE, { connection: queueConnection, prefix: config.queuePrefix });
  queue.on('error', redisDown);
  const relay = new OperationRelay(db, queue, {
    databaseUrl: config.databaseUrl,
    sweepMs: config.operationSweepMs,
    onError: (e) => warn(config)({ error: e.message }, 'operation relay failed'),
    onRecovered: (r) => warn(config)({ operation: r.operation, cluster: r.cluster, kind: r.kind, state: r.state, job: r.job }, 'operation queued again: its job had ended'),
  });
  await relay.start();
  const clouds = callerClouds(config);
  const checks = config.cloudResourceChecks ? templateCloud(config, clouds) : undefined;
  const quotas = new QuotaRepo(db);
  return {
    config,
    db,
    redis,
    metrics,
    validator,
    templates: {
      repo: new ClusterTemplateRepo(db, () => cache.invalidate()),
      cache,
      cloud: checks,
    },
    preflight: preflightOf(config, clouds, quotas, checks, opts.steps),
    queue,
    relay,
    clusters: new ClusterRepo(db),
    nodegroups: new NodeGroupRepo(db),
    clouds,
    secretBox: new SecretBox(config.secretKeys),
    outbox: { db, kick: () => void relay.kick() },
    operations: new OperationRepo(db),
    events: new ClusterEventRepo(db),
    nodeMaterial: new NodeMaterialRepo(db),
    /**
     * Within SHUTDOWN_TIMEOUT_MS even when Redis or PostgreSQL does not answer: what has not closed by
     * then is abandoned, and disconnecting fails the commands still waiting (the relay's among them).
     */
    async close() {
      const d = deadline(config.shutdownTimeoutMs);
      await d.within(relay.close());
      await d.within(queue.close());
      queueConnection.disconnect();
      redis.disconnect();
      await d.within(feed.close());
      await d.within(db.destroy());
    },
  };
}
