// The listening side of the process modes (src/main.ts): the API, a worker (with its probe server),
// the simulator alone, or all three in one process for `npm start`. Each stops gracefully on
// SIGTERM/SIGINT: in-flight requests and running jobs finish, then queues, pools and listeners close.
import { resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './api/app.js';
import { loadConfig, type Config } from './config.js';
import { createDataSource } from './db/data-source.js';
import { simListenFromEnv, startEmbeddedSim, SERVICE_USER, writeCloudsYaml, type EmbeddedSim } from './simulator-seam.js';
import { startHealthServer } from '../workers/health-server.js';
import { startWorker } from '../workers/main.js';
import { createOperation } from '../workers/cluster/create.js';
import { deadline } from './operations/bounded-close.js';

const log = (msg: string, fields: Record<string, unknown> = {}) => console.log(JSON.stringify({ level: 'info', msg, ...fields }));

function onShutdown(what: string, close: () => Promise<void>): void {
  let closing = false;
  for (const sig of ['SIGTERM', 'SIGINT'] as const) {
    process.once(sig, () => {
      if (closing) return;
      closing = true;
      const started = Date.now();
      log(`${what} stopping`, { signal: sig });
      close()
        .then(() => {
          log(`${what} stopped`, { ms: Date.now() - started });
          process.exit(0);
        })
        .catch((e) => {
          console.error(JSON.stringify({ level: 'error', msg: `${what} did not stop cleanly`, reason: (e as Error).message }));
          process.exit(1);
        });
    });
  }
}

export async function startApi(config: Config, extraClose?: () => Promise<void>): Promise<FastifyInstance> {
  const app = await buildApp(config, { steps: createOperation.steps });
  await app.listen({ host: config.api.host, port: config.api.port });
  onShutdown('api', async () => {
    await app.close();
    await extraClose?.();
  });
  return app;
}

/**
 * The operations worker (WORKER_CONCURRENCY jobs at once, default 4), with its database and cloud
 * clients, and its probe server when WORKER_HEALTH_PORT is set (workers/health-server.ts).
 */
export async function startWorkerProcess(env: NodeJS.ProcessEnv = process.env): Promise<{ close(): Promise<void> }> {
  const config = loadConfig(env);
  const db = createDataSource(config.databaseUrl, Math.max(4, config.workerConcurrency * 2), config.db);
  await db.initialize();
  const worker = await startWorker({
    redisUrl: config.redisUrl,
    concurrency: config.workerConcurrency,
    healthIntervalMs: config.healthIntervalMs,
    prefix: config.queuePrefix,
    db,
    config,
    closeTimeoutMs: config.shutdownTimeoutMs,
    heartbeatStaleMs: config.serviceDownTime * 1000,
    lockDurationMs: config.workerLockMs,
    stalledIntervalMs: config.workerLockMs,
    runner: { pollMs: config.workerPollMs },
  });
  const { host, port } = config.workerHealth;
  const probes =
    env === process.env && port > 0
      ? await startHealthServer({
          host,
          port,
          checks: {
            consuming: async () => {
              if (!worker.consuming()) throw new Error('not consuming');
            },
            redis: () => worker.ping(),
            database: () => db.query('SELECT 1'),
          },
        })
      : undefined;
  log('worker started', { concurrency: config.workerConcurrency, id: worker.id, ...(probes ? { probes: `http://${host}:${probes.port}` } : {}) });
  const handle = {
    async close() {
      probes?.draining();
      await worker.close();
      await probes?.close();
      await deadline(config.shutdownTimeoutMs).within(db.destroy());
    },
  };
  if (env === process.env) onShutdown('worker', () => handle.close());
  return handle;
}

/** Starts the simulator as the environment says (simListenFromEnv, cloudOptionsFromEnv) and logs where it is. */
async function launchSim(env: NodeJS.ProcessEnv, cloudsYaml: string | undefined): Promise<EmbeddedSim> {
  const listen = simListenFromEnv(env);
  const sim = await startEmbeddedSim(listen);
  if (cloudsYaml) writeCloudsYaml(resolve(cloudsYaml), sim.authUrl);
  log('embedded simulator started', {
    keystone: sim.authUrl,
    ...sim.cloud.urls,
    ...(cloudsYaml ? { clouds_yaml: resolve(cloudsYaml) } : {}),
  });
  return sim;
}

/**
 * The simulator alone (Keystone, the OpenStack services, the admin API), for API and worker
 * processes elsewhere: they use KEYSTONE_URL=<its Keystone>/v3 and its service user. SIM_HOST is
 * where it listens, PUBLIC_HOST the name its catalog gives them; clouds.yaml only when CLOUDS_YAML is set.
 */
export async function startSimProcess(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const sim = await launchSim(env, env.CLOUDS_YAML || undefined);
  onShutdown('simulator', () => sim.close());
}

/**
 * API, a worker (unless RUN_WORKER=false) and the embedded simulator (unless KEYSTONE_URL names
 * a real Keystone). PUBLIC_HOST is the host the simulator's catalog and clouds.yaml advertise
 * (default API_HOST; set it when listening on 0.0.0.0).
 */
export async function startAll(): Promise<void> {
  const env = { ...process.env };
  let sim: EmbeddedSim | undefined;
  if (!env.KEYSTONE_URL) {
    sim = await launchSim(env, env.CLOUDS_YAML ?? 'clouds.yaml');
    env.KEYSTONE_URL = sim.authUrl;
    // The simulated cloud answers the image, flavor and network checks; an explicit setting wins.
    if (!env.CLOUD_RESOURCE_CHECKS) env.CLOUD_RESOURCE_CHECKS = 'true';
    env.SERVICE_USERNAME = SERVICE_USER.username;
    env.SERVICE_PASSWORD = SERVICE_USER.password;
    env.SERVICE_PROJECT_NAME = SERVICE_USER.project;
  }
  const worker = /^(0|false|no|off)$/i.test(env.RUN_WORKER ?? '') ? undefined : await startWorkerProcess(env);
  await startApi(loadConfig(env), async () => {
    await worker?.close();
    await sim?.close();
  });
}
