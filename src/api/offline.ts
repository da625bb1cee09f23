// An app with unconnected services, for work that never serves a request: generating the
// OpenAPI document. Every service is a real one, never connected.
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { loadConfig } from '../config.js';
import { createDataSource } from '../db/data-source.js';
import { ClusterTemplateRepo } from '../db/repos/cluster-templates.js';
import { ClusterRepo } from '../db/repos/clusters.js';
import { ClusterEventRepo } from '../db/repos/events.js';
import { NodeMaterialRepo } from '../db/repos/node-material.js';
import { NodeGroupRepo } from '../db/repos/nodegroups.js';
import { OperationRepo } from '../db/repos/operations.js';
import { SecretBox } from '../security/secret-box.js';
import { ServiceToken } from '../keystone/service-token.js';
import { TokenValidator } from '../keystone/token-validator.js';
import { buildApp } from './app.js';
import { callerClouds, preflightOf } from '../preflight/of-config.js';
import { QuotaRepo } from '../db/repos/quotas.js';
import { TemplateCache } from '../db/template-cache.js';
import { Metrics } from './metrics.js';

export async function buildOfflineApp(): Promise<FastifyInstance> {
  const config = loadConfig({
    DATABASE_URL: 'postgres://offline@127.0.0.1:1/none',
    REDIS_URL: 'redis://127.0.0.1:1',
    KEYSTONE_URL: 'http://127.0.0.1:1/v3',
    SERVICE_PASSWORD: 'unused',
    SECRET_KEYS: Buffer.alloc(32).toString('base64'),
  });
  const db = createDataSource(config.databaseUrl, 10, config.db);
  const redis = new Redis(config.redisUrl, { lazyConnect: true });
  const validator = new TokenValidator(config.keystone, new ServiceToken(config.keystone.authUrl, config.keystone.service, 1));
  const clouds = callerClouds(config);
  const app = await buildApp(config, {
    logger: false,
    services: {
      config,
      db,
      redis,
      metrics: new Metrics({ processMetrics: false }),
      validator,
      templates: { repo: new ClusterTemplateRepo(db), cache: new TemplateCache(() => false, config.templateCache), cloud: undefined },
      clusters: new ClusterRepo(db),
      nodegroups: new NodeGroupRepo(db),
      clouds,
      secretBox: new SecretBox(config.secretKeys),
      // Never asked: generating the document serves no request (no quota bill, no cloud).
      preflight: preflightOf(config, clouds, new QuotaRepo(db), undefined, []),
      outbox: { db },
      operations: new OperationRepo(db),
      events: new ClusterEventRepo(db),
      nodeMaterial: new NodeMaterialRepo(db),
      close: async () => redis.disconnect(),
    },
  });
  await app.ready();
  return app;
}
