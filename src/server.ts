// The listening side: starts the API (and, for `npm start`, the embedded simulator) and shuts
// down gracefully on SIGTERM/SIGINT, finishing in-flight requests.
import { resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './api/app.js';
import { loadConfig, type Config } from './config.js';
import { createDataSource } from './db/data-source.js';
import { DEFAULT_SIM_PORTS, startEmbeddedSim, SERVICE_USER, writeCloudsYaml } from './cloudsim/embedded.js';
import { startWorker } from '../workers/main.js';

function onShutdown(close: () => Promise<void>): void {
  let closing = false;
  for (const sig of ['SIGTERM', 'SIGINT'] as const) {
    process.once(sig, () => {
      if (closing) return;
      closing = true;
      close()
        .then(() => process.exit(0))
        .catch((e) => {
          console.error(e);
          process.exit(1);
        });
    });
  }
}

export async function startApi(config: Config, extraClose?: () => Promise<void>): Promise<FastifyInstance> {
  const app = await buildApp(config);
  await app.listen({ host: config.api.host, port: config.api.port });
  onShutdown(async () => {
    await app.close();
    await extraClose?.();
  });
  return app;
}

/** The operations worker alone (WORKER_CONCURRENCY jobs at once, default 4), with its database and cloud clients. */
export async function startWorkerProcess(env: NodeJS.ProcessEnv = process.env): Promise<{ close(): Promise<void> }> {
  const config = loadConfig(env);
  const db = createDataSource(config.databaseUrl, Math.max(4, config.workerConcurrency * 2));
  await db.initialize();
  const worker = await startWorker({ redisUrl: config.redisUrl, concurrency: config.workerConcurrency, prefix: config.queuePrefix, db, config });
  console.log(JSON.stringify({ level: 'info', msg: 'worker started', concurrency: config.workerConcurrency }));
  const handle = {
    async close() {
      await worker.close();
      await db.destroy();
    },
  };
  if (env === process.env) onShutdown(() => handle.close());
  return handle;
}

/**
 * API, a worker (unless RUN_WORKER=false) and the embedded simulator (unless KEYSTONE_URL names
 * a real Keystone). PUBLIC_HOST is the host the simulator's catalog and clouds.yaml advertise
 * (default API_HOST; set it when listening on 0.0.0.0).
 */
export async function startAll(): Promise<void> {
  const env = { ...process.env };
  let sim: Awaited<ReturnType<typeof startEmbeddedSim>> | undefined;
  if (!env.KEYSTONE_URL) {
    const host = env.API_HOST ?? '127.0.0.1';
    const publicHost = env.PUBLIC_HOST ?? host;
    const apiPort = Number(env.API_PORT ?? 9511);
    sim = await startEmbeddedSim({
      host,
      publicHost,
      keystonePort: Number(env.SIM_KEYSTONE_PORT ?? 5000),
      apiUrl: env.PUBLIC_API_URL ?? `http://${publicHost}:${apiPort}`,
      ports: {
        glance: Number(env.SIM_GLANCE_PORT ?? DEFAULT_SIM_PORTS.glance),
        nova: Number(env.SIM_NOVA_PORT ?? DEFAULT_SIM_PORTS.nova),
        neutron: Number(env.SIM_NEUTRON_PORT ?? DEFAULT_SIM_PORTS.neutron),
        octavia: Number(env.SIM_OCTAVIA_PORT ?? DEFAULT_SIM_PORTS.octavia),
        cinder: Number(env.SIM_CINDER_PORT ?? DEFAULT_SIM_PORTS.cinder),
        designate: Number(env.SIM_DESIGNATE_PORT ?? DEFAULT_SIM_PORTS.designate),
        manila: Number(env.SIM_MANILA_PORT ?? DEFAULT_SIM_PORTS.manila),
        barbican: Number(env.SIM_BARBICAN_PORT ?? DEFAULT_SIM_PORTS.barbican),
        admin: Number(env.SIM_ADMIN_PORT ?? DEFAULT_SIM_PORTS.admin),
      },
    });
    env.KEYSTONE_URL = sim.authUrl;
    // The simulated cloud answers the image, flavor and network checks; an explicit setting wins.
    if (!env.CLOUD_RESOURCE_CHECKS) env.CLOUD_RESOURCE_CHECKS = 'true';
    env.SERVICE_USERNAME = SERVICE_USER.username;
    env.SERVICE_PASSWORD = SERVICE_USER.password;
    env.SERVICE_PROJECT_NAME = SERVICE_USER.project;
    const clouds = resolve(env.CLOUDS_YAML ?? 'clouds.yaml');
    writeCloudsYaml(clouds, sim.authUrl);
    console.log(
      JSON.stringify({ level: 'info', msg: 'embedded simulator started', keystone: sim.authUrl, ...sim.cloud.urls, clouds_yaml: clouds }),
    );
  }
  const worker = /^(0|false|no|off)$/i.test(env.RUN_WORKER ?? '') ? undefined : await startWorkerProcess(env);
  await startApi(loadConfig(env), async () => {
    await worker?.close();
    await sim?.close();
  });
}
