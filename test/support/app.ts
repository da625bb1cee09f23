// Builds the API for a test file: a fresh database, a Redis connection, the Keystone emulator
// listening on loopback, and helpers to get tokens and make requests with app.inject().
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/api/app.js';
import type { PortalOptions } from '../../src/api/portal/index.js';
import { createServices, type RunningServices } from '../../src/api/services.js';
import { startCloudSims, type CloudSims } from '../../cloudsim/cloud.js';
import type { SimClockOptions } from '../../cloudsim/common/clock.js';
import type { CloudSeed } from '../../cloudsim/seed.js';
import { BUILTIN_USERS, SERVICE_USER } from '../../cloudsim/embedded.js';
import type { GlanceState } from '../../cloudsim/glance/index.js';
import type { NeutronState } from '../../cloudsim/neutron/index.js';
import type { NovaState } from '../../cloudsim/nova/index.js';
import { createKeystoneSim, type KeystoneSim, type KeystoneSimOptions } from '../../cloudsim/keystone/index.js';
import { loadConfig, type Config } from '../../src/config.js';
import { freshDatabase } from './db.js';
import { createOperation } from '../../workers/cluster/create.js';

export type User = keyof typeof BUILTIN_USERS;

/** One random sealing key per test process. */
export const TEST_SECRET_KEY = randomBytes(32).toString('base64');

export interface TestApp {
  app: FastifyInstance;
  /** The app's services, with the operations queue and the relay that feeds it. */
  services: RunningServices;
  config: Config;
  keystone: KeystoneSim;
  /** http://127.0.0.1:<port> when started with `listen`. */
  apiUrl: string | undefined;
  /** The simulated Glance, Nova and Neutron (their state, to add or break things) when started with `cloud`. */
  cloud: { glance: GlanceState; nova: NovaState; neutron: NeutronState; sims: CloudSims } | undefined;
  /** A fresh project-scoped token for a built-in user. */
  token(user: User): Promise<string>;
  /** app.inject() as `user`, with Magnum's latest microversion unless headers say otherwise. */
  as(user: User, opts: InjectOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  keystone?: Partial<KeystoneSimOptions>;
  /** Applied to the configuration after it is loaded. */
  config?: (c: Config) => void;
  /** Listen on a loopback port and register it in the catalog as container-infra (for real clients). */
  listen?: boolean;
  /** Start Glance, Nova and Neutron simulators on loopback, in the catalog, with cloudResourceChecks on. */
  cloud?: boolean;
  /** The simulated cloud's time scale (default 0.001: a 90 s load balancer takes 90 ms). */
  timeScale?: number;
  /** The simulated cloud's seed and delay distributions, and its starting contents (benchmarks). */
  clock?: Omit<SimClockOptions, 'timeScale'>;
  cloudSeed?: CloudSeed;
  /** Where the portal's built files are (a test's own). */
  portal?: PortalOptions;
  /** Hooks added to the Keystone emulator's app before it listens (a test watching what it issues). */
  keystoneHooks?: (app: FastifyInstance) => void;
  /** The API logs (pino, at config.logLevel) to this stream instead of not at all. */
  logStream?: NodeJS.WritableStream;
}

export async function startKeystone(opts: Partial<KeystoneSimOptions> = {}, hooks?: (app: FastifyInstance) => void): Promise<KeystoneSim> {
  const passwords = Object.fromEntries(Object.entries(BUILTIN_USERS).map(([u, v]) => [u, v.password]));
  const ks = await createKeystoneSim({
    publicUrl: 'http://127.0.0.1',
    passwords: { ...passwords, magnum: SERVICE_USER.password },
    ...opts,
  });
  hooks?.(ks.app);
  ks.setPublicUrl(await ks.app.listen({ host: '127.0.0.1', port: 0 }));
  return ks;
}

/** The simulated OpenStack services on loopback, registered in the emulator's catalog. */
export async function startSims(keystone: KeystoneSim, timeScale = 0.001, more: { clock?: Omit<SimClockOptions, 'timeScale'>; seed?: CloudSeed } = {}): Promise<CloudSims> {
  return startCloudSims({
    ...(more.seed ? { seed: more.seed } : {}),
    keystone,
    authUrl: `http://127.0.0.1:${(keystone.app.server.address() as AddressInfo).port}/v3`,
    credentials: { username: SERVICE_USER.username, password: SERVICE_USER.password, projectName: SERVICE_USER.project },
    host: '127.0.0.1',
    // Cloud transitions (load balancers ~90 s, volumes ~5 s) in milliseconds.
    clock: { ...more.clock, timeScale },
  });
}

export async function passwordToken(keystone: KeystoneSim, user: string, password: string, project: string): Promise<string> {
  const res = await keystone.app.inject({
    method: 'POST',
    url: '/v3/auth/tokens?nocatalog',
    payload: {
      auth: {
        identity: { methods: ['password'], password: { user: { name: user, domain: { id: 'default' }, password } } },
        scope: { project: { name: project, domain: { id: 'default' } } },
      },
    },
  });
  const token = res.headers['x-subject-token'];
  if (res.statusCode !== 201 || typeof token !== 'string') throw new Error(`login of ${user} failed: ${res.statusCode} ${res.body}`);
  return token;
}

export async function testApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const keystone = await startKeystone(opts.keystone, opts.keystoneHooks);
  const authUrl = `http://127.0.0.1:${(keystone.app.server.address() as AddressInfo).port}/v3`;
  const sims = opts.cloud
    ? await startSims(keystone, opts.timeScale, { ...(opts.clock ? { clock: opts.clock } : {}), ...(opts.cloudSeed ? { seed: opts.cloudSeed } : {}) })
    : undefined;
  const db = await freshDatabase();
  const config = loadConfig({
    DATABASE_URL: db.url,
    REDIS_URL: process.env.REDIS_URL,
    KEYSTONE_URL: authUrl,
    SERVICE_PASSWORD: SERVICE_USER.password,
    LOG_LEVEL: 'silent',
    SECRET_KEYS: TEST_SECRET_KEY,
    // Each app its own queue keys: jobs and heartbeats of other test files stay apart.
    QUEUE_PREFIX: `test-${randomBytes(4).toString('hex')}`,
  });
  if (sims) config.cloudResourceChecks = true;
  opts.config?.(config);
  const services = await createServices(config, { steps: createOperation.steps });
  const portal = opts.portal ? { portal: opts.portal } : {};
  const app = await buildApp(config, opts.logStream ? { services, logStream: opts.logStream, ...portal } : { services, logger: false, ...portal });
  await app.ready();
  let apiUrl: string | undefined;
  if (opts.listen) {
    apiUrl = await app.listen({ host: '127.0.0.1', port: 0 });
    keystone.state.catalog.upsert({ type: 'container-infra', name: 'magnum', url: `${apiUrl}/v1` });
  }
  const tokens = new Map<User, string>();
  const token = async (user: User) => passwordToken(keystone, user, BUILTIN_USERS[user].password, BUILTIN_USERS[user].project);
  return {
    app,
    services,
    config,
    keystone,
    apiUrl,
    cloud: sims ? { glance: sims.glance.state, nova: sims.nova.state, neutron: sims.neutron.state, sims } : undefined,
    token,
    async as(user, inject) {
      let t = tokens.get(user);
      if (!t) {
        t = await token(user);
        tokens.set(user, t);
      }
      return app.inject({
        ...inject,
        headers: { 'openstack-api-version': 'container-infra latest', 'x-auth-token': t, ...(inject.headers ?? {}) },
      });
    },
    async close() {
      await app.close();
      await services.close();
      await sims?.close();
      await keystone.app.close();
      await db.drop();
    },
  };
}
