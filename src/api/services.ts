// The long-lived collaborators of the API, created once per process (or per test app).
import { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';
import type { Config } from '../config.js';
import { createDataSource } from '../db/data-source.js';
import { ChangeFeed } from '../db/change-feed.js';
import { ClusterTemplateRepo } from '../db/repos/cluster-templates.js';
import { ServiceToken } from '../keystone/service-token.js';
import { TokenValidator } from '../keystone/token-validator.js';
import { openstackTemplateCloud, type TemplateCloud } from '../openstack/template-checks.js';
import { Metrics } from './metrics.js';
import { TemplateCache } from './routes/v1/clustertemplates/cache.js';
import type { TemplateDeps } from './routes/v1/clustertemplates/service.js';

export interface Services {
  config: Config;
  db: DataSource;
  redis: Redis;
  metrics: Metrics;
  validator: TokenValidator;
  templates: TemplateDeps;
  close(): Promise<void>;
}

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
}

/** Glance/Nova/Neutron checks with the caller's token; failed calls are logged with their request ids. */
function templateCloud(config: Config): TemplateCloud {
  return openstackTemplateCloud({
    authUrl: config.keystone.authUrl,
    interface: config.openstack.interface,
    ...(config.openstack.region ? { region: config.openstack.region } : {}),
    timeoutMs: config.openstack.timeoutMs,
    onFailure: (e) => {
      if (config.logLevel === 'silent') return;
      console.warn(
        JSON.stringify({ level: 'warn', msg: 'openstack call failed', service: e.service, status: e.status, kind: e.kind, request_id: e.requestId, detail: e.message }),
      );
    },
  });
}

export async function createServices(config: Config, opts: { processMetrics?: boolean } = {}): Promise<Services> {
  const metrics = new Metrics({ processMetrics: opts.processMetrics ?? false });
  const serviceToken = new ServiceToken(config.keystone.authUrl, config.keystone.service, config.keystone.timeoutMs);
  const validator = new TokenValidator(config.keystone, serviceToken, metrics);
  await validator.ready();
  const db = createDataSource(config.databaseUrl);
  await db.initialize();
  const redis = new Redis(config.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2 });
  await redis.connect();
  const cache = new TemplateCache(() => config.templateCache.enabled && feed.healthy, config.templateCache);
  const feed = new ChangeFeed(config.databaseUrl, 'cluster_template_changed', () => cache.invalidate(), {
    warn: (obj, msg) => console.warn(JSON.stringify({ level: 'warn', msg, ...obj })),
  });
  if (config.templateCache.enabled) await feed.start();
  return {
    config,
    db,
    redis,
    metrics,
    validator,
    templates: {
      repo: new ClusterTemplateRepo(db, () => cache.invalidate()),
      cache,
      cloud: config.cloudResourceChecks ? templateCloud(config) : undefined,
    },
    async close() {
      await feed.close();
      redis.disconnect();
      await db.destroy();
    },
  };
}
