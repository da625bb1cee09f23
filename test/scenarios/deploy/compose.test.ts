// docker-compose.yml: read by Docker Compose itself (`docker-compose config`, Debian's package,
// which needs no Docker engine: it validates against the Compose schema, resolves the anchors and
// interpolates), then checked against the code: each service of the image runs a mode with only
// variables that mode reads and values that load, several API and worker replicas start after the
// migration, Redis keeps its data and never evicts (BullMQ), and every health check asks a path
// the process serves on the port it listens on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { buildOfflineApp } from '../../../src/api/offline.js';
import { simListenFromEnv } from '../../../cloudsim/embedded.js';
import { loadConfig, loadMigrateConfig } from '../../../src/config.js';
import { isMode } from '../../../src/process/modes.js';
import { WORKER_PROBES } from '../../../workers/health-server.js';
import { aptInstall } from '../../support/apt.js';
import { TEST_SECRET_KEY } from '../../support/app.js';
import { envReadBy, imageEnv, ROOT } from './support.js';

const run = promisify(execFile);

interface Service {
  image?: string;
  build?: { context: string };
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  deploy?: { replicas?: number };
  healthcheck?: { test: string[] };
  ports?: { published: string; target: number }[];
  restart?: string;
  volumes?: string[];
}

async function composeConfig(env: NodeJS.ProcessEnv): Promise<{ stdout: string; stderr: string }> {
  const { status } = await run('sh', ['-c', 'command -v docker-compose']).then(() => ({ status: 0 }), () => ({ status: 1 }));
  if (status !== 0) await aptInstall(['docker-compose']);
  return run('docker-compose', ['--project-directory', ROOT, '-f', `${ROOT}/docker-compose.yml`, 'config'], { env: { PATH: process.env.PATH, ...env } });
}

test('docker-compose.yml: valid for Docker Compose, consistent with the image and the code', async () => {
  await assert.rejects(composeConfig({}), /SECRET_KEYS/, 'no SECRET_KEYS, no start');
  const { stdout } = await composeConfig({ SECRET_KEYS: TEST_SECRET_KEY });
  const { services, volumes } = parse(stdout) as { services: Record<string, Service>; volumes: Record<string, unknown> };
  const ours = Object.entries(services).filter(([, s]) => s.image?.startsWith('magnum-ts:'));
  const image = imageEnv();
  const byMode: Record<string, [string, Service]> = {};

  for (const [name, s] of ours) {
    assert.equal(s.build?.context, ROOT, `${name}: built from this repository's Dockerfile`);
    const mode = s.command?.[0];
    assert.ok(isMode(mode) && mode !== 'all' && s.command?.length === 1, `${name}: command ${JSON.stringify(s.command)} is one mode`);
    byMode[mode] = [name, s];
    const env = { ...image, ...s.environment };
    const known = envReadBy(mode);
    for (const v of Object.keys(s.environment ?? {})) assert.ok(known.has(v), `${name}: ${v} is not read by mode ${mode}`);
    if (mode === 'migrate') loadMigrateConfig(env);
    else if (mode === 'sim') simListenFromEnv(env);
    else loadConfig(env);
  }
  assert.deepEqual(Object.keys(byMode).sort(), ['api', 'migrate', 'sim', 'worker']);
  const [apiName, api] = byMode.api!;
  const [workerName, worker] = byMode.worker!;
  const [migrateName, migrate] = byMode.migrate!;
  const [simName, sim] = byMode.sim!;

  // Several replicas of each, after the migration, with their dependencies healthy.
  assert.ok((api.deploy?.replicas ?? 1) >= 2, 'several API replicas');
  assert.ok((worker.deploy?.replicas ?? 1) >= 2, 'several workers');
  assert.equal(migrate.restart, 'no', 'the migration runs once');
  for (const [name, s] of Object.entries(services)) {
    for (const [dep, { condition }] of Object.entries(s.depends_on ?? {})) {
      assert.ok(services[dep], `${name} depends on ${dep}, a service`);
      if (condition === 'service_healthy') assert.ok(services[dep]!.healthcheck, `${name} waits for ${dep}'s health check, which it has`);
    }
  }
  for (const s of [api, worker]) {
    assert.equal(s.depends_on?.[migrateName]?.condition, 'service_completed_successfully');
    const env = loadConfig({ ...image, ...s.environment });
    for (const [dep, url] of [
      ['postgres', env.databaseUrl],
      ['redis', env.redisUrl],
      [simName, env.keystone.authUrl],
    ] as const) {
      const host = new URL(url).hostname;
      assert.ok(services[host], `${url} names a service`);
      assert.equal(host, dep);
      assert.equal(s.depends_on?.[host]?.condition, 'service_healthy', `waits for ${host}`);
    }
  }

  // PostgreSQL and Redis keep their data; Redis never evicts a key (BullMQ requires noeviction).
  const db = services.postgres!;
  const dbUrl = new URL(loadConfig({ ...image, ...api.environment }).databaseUrl);
  assert.deepEqual([dbUrl.username, dbUrl.password, dbUrl.pathname.slice(1)], [db.environment!.POSTGRES_USER, db.environment!.POSTGRES_PASSWORD, db.environment!.POSTGRES_DB]);
  assert.ok(db.volumes?.some((v) => v.split(':')[1] === '/var/lib/postgresql/data' && v.split(':')[0]! in volumes), 'PostgreSQL data on a volume');
  const redis = services.redis!;
  const flag = (name: string) => redis.command?.[redis.command.indexOf(name) + 1];
  assert.equal(flag('--appendonly'), 'yes');
  assert.equal(flag('--maxmemory-policy'), 'noeviction');
  assert.ok(redis.volumes?.some((v) => v.split(':')[1] === '/data' && v.split(':')[0]! in volumes), 'the append-only file on a volume');

  // Health checks: the image's probe against what each process serves, where it listens.
  const probe = (s: Service): URL => {
    const t = s.healthcheck?.test ?? [];
    assert.deepEqual(t.slice(0, 3), ['CMD', 'node', 'dist/src/probe.js']);
    return new URL(t[3]!);
  };
  const apiProbe = probe(api);
  const apiConfig = loadConfig({ ...image, ...api.environment });
  assert.equal(Number(apiProbe.port), apiConfig.api.port);
  assert.equal(apiConfig.api.host, '0.0.0.0', 'the API is reachable from other containers');
  const app = await buildOfflineApp();
  try {
    assert.ok(app.hasRoute({ method: 'GET', url: apiProbe.pathname }), `the API serves ${apiProbe.pathname}`);
  } finally {
    await app.close();
  }
  const workerProbe = probe(worker);
  const workerConfig = loadConfig({ ...image, ...worker.environment });
  assert.equal(Number(workerProbe.port), workerConfig.workerHealth.port);
  assert.equal(workerProbe.pathname, WORKER_PROBES.readiness);
  const simProbe = probe(sim);
  const listen = simListenFromEnv({ ...image, ...sim.environment });
  assert.equal(Number(simProbe.port), listen.keystonePort);
  assert.equal(simProbe.pathname, '/v3');
  assert.equal(new URL(apiConfig.keystone.authUrl).port, String(listen.keystonePort));
  assert.equal(listen.host, '0.0.0.0', 'the simulator (and its clusters) reachable from other containers');
  assert.equal(listen.publicHost, simName, 'its catalog names it as the other containers reach it');

  // One host port per API replica; the simulator's Keystone on the host for the CLI.
  const range = api.ports?.find((p) => p.target === apiConfig.api.port)?.published.split('-').map(Number) ?? [];
  assert.ok(range.length === 2 && range[1]! - range[0]! + 1 >= api.deploy!.replicas!, `${apiName}: a host port for each replica`);
  assert.ok(sim.ports?.some((p) => p.target === listen.keystonePort));
  assert.equal(new URL(listen.apiUrl).port, String(range[0]), 'the catalog points the CLI at the first replica');
  assert.ok(workerName);
});
