// The simulator as `npm start` embeds it: the Keystone emulator on a loopback port, with our
// own API in its catalog, Glance, Nova, Neutron, Octavia, Cinder, Designate, Manila, Barbican and the simulator's
// admin API beside it, and a clouds.yaml for the built-in users. The environment chooses the
// seed file, fault rules and the state file (cloudOptionsFromEnv).
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { stringify } from 'yaml';
import { ConfigError } from '../src/config.js';
import { SERVICES, startCloudSims, type CloudSimOptions, type CloudSims } from './cloud.js';
import type { SimClockOptions } from './common/clock.js';
import { parseFaultConfig } from './common/fault-config.js';
import { createKeystoneSim, type KeystoneSim } from './keystone/index.js';
import { loadSeed } from './seed.js';

export const BUILTIN_USERS = {
  admin: { password: 'admin-secret', project: 'admin' },
  demo: { password: 'demo-secret', project: 'demo' },
  'demo-reader': { password: 'reader-secret', project: 'demo' },
  other: { password: 'other-secret', project: 'other' },
} as const;
export const SERVICE_USER = { username: 'magnum', password: 'magnum-secret', project: 'service' } as const;

/** The services' usual ports (Nova's catalog URL adds /v2.1, Cinder's /v3/%(project_id)s, Manila's /v2, the admin API's /v1). */
export const DEFAULT_SIM_PORTS = { glance: 9292, nova: 8774, neutron: 9696, octavia: 9876, cinder: 8776, designate: 9001, manila: 8786, barbican: 9311, admin: 9990 } as const;

export type SimPorts = Partial<Record<keyof typeof DEFAULT_SIM_PORTS, number>>;

/** The variable that moves each of the simulator's ports (src/port-check.ts names them when one is taken). */
export const SIM_PORT_VARIABLES = {
  keystone: 'SIM_KEYSTONE_PORT',
  glance: 'SIM_GLANCE_PORT',
  nova: 'SIM_NOVA_PORT',
  neutron: 'SIM_NEUTRON_PORT',
  octavia: 'SIM_OCTAVIA_PORT',
  cinder: 'SIM_CINDER_PORT',
  designate: 'SIM_DESIGNATE_PORT',
  manila: 'SIM_MANILA_PORT',
  barbican: 'SIM_BARBICAN_PORT',
  admin: 'SIM_ADMIN_PORT',
} as const satisfies Record<keyof typeof DEFAULT_SIM_PORTS | 'keystone', string>;

/** Where the simulator listens and what it advertises, from the environment. */
export interface SimListen {
  /** SIM_HOST, else API_HOST, else 127.0.0.1: where every service (and each cluster's API) listens. */
  host: string;
  /** PUBLIC_HOST, else the host: the host the catalog and clouds.yaml name (the one clients reach it by). */
  publicHost: string;
  keystonePort: number;
  /** PUBLIC_API_URL, else http://PUBLIC_HOST:API_PORT: the Magnum endpoint in the catalog. */
  apiUrl: string;
  ports: Required<SimPorts>;
}

export function simListenFromEnv(env: NodeJS.ProcessEnv = process.env): SimListen {
  const port = (name: string, fallback: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0 || n > 65535) throw new ConfigError(`${name} must be an integer between 0 and 65535, got "${raw}"`);
    return n;
  };
  const host = env.SIM_HOST || env.API_HOST || '127.0.0.1';
  const publicHost = env.PUBLIC_HOST || host;
  const apiUrl = env.PUBLIC_API_URL || `http://${publicHost}:${port('API_PORT', 9511)}`;
  try {
    new URL(apiUrl);
  } catch {
    throw new ConfigError(`PUBLIC_API_URL must be a URL, got "${apiUrl}"`);
  }
  const v = SIM_PORT_VARIABLES;
  const ports = Object.fromEntries(Object.entries(DEFAULT_SIM_PORTS).map(([k, d]) => [k, port(v[k as keyof typeof DEFAULT_SIM_PORTS], d)])) as Required<SimPorts>;
  return { host, publicHost, keystonePort: port(v.keystone, 5000), apiUrl, ports };
}

/** What the environment says about the cloud's contents and misbehaviour. */
export type EnvCloudOptions = Pick<CloudSimOptions, 'seed' | 'faults' | 'persist'>;

/**
 * The cloud's options from the environment, checked at boot (a bad file stops the start):
 * - CLOUDSIM_SEED_FILE: the seed file (flavors, images, networks, quotas) instead of cloudsim/seed.yaml;
 * - CLOUDSIM_FAULTS (JSON or YAML text) and/or CLOUDSIM_FAULTS_FILE (a JSON or YAML file): fault
 *   rules by service, e.g. {"nova": [{"operation": "POST /servers", "rate": 0.1, "status": 503}]};
 * - CLOUDSIM_STATE_FILE: keep the whole cloud in this file across restarts, saved every
 *   CLOUDSIM_STATE_INTERVAL_MS (default 30000; 0 = only on shutdown).
 */
export function cloudOptionsFromEnv(env: NodeJS.ProcessEnv = process.env, log: (m: string) => void = (m) => console.error(m)): EnvCloudOptions {
  const out: EnvCloudOptions = {};
  if (env.CLOUDSIM_SEED_FILE) out.seed = loadSeed(resolve(env.CLOUDSIM_SEED_FILE));
  const faults: NonNullable<EnvCloudOptions['faults']> = {};
  const addFaults = (text: string, source: string) => {
    for (const [service, rules] of Object.entries(parseFaultConfig(text, SERVICES, source))) faults[service] = [...(faults[service] ?? []), ...rules];
  };
  if (env.CLOUDSIM_FAULTS_FILE) addFaults(readFileSync(resolve(env.CLOUDSIM_FAULTS_FILE), 'utf8'), env.CLOUDSIM_FAULTS_FILE);
  if (env.CLOUDSIM_FAULTS) addFaults(env.CLOUDSIM_FAULTS, 'CLOUDSIM_FAULTS');
  if (Object.keys(faults).length > 0) out.faults = faults;
  if (env.CLOUDSIM_STATE_FILE) {
    const interval = Number(env.CLOUDSIM_STATE_INTERVAL_MS ?? '30000');
    if (!Number.isFinite(interval) || interval < 0) throw new Error(`CLOUDSIM_STATE_INTERVAL_MS: not a number of milliseconds: ${env.CLOUDSIM_STATE_INTERVAL_MS}`);
    out.persist = { file: resolve(env.CLOUDSIM_STATE_FILE), intervalMs: interval, log };
  }
  return out;
}

/**
 * The demo's clock: a hundred times faster than a real cloud (an amphora LB takes ~1 s), seeded from
 * CLOUDSIM_SEED when set, and the seed logged so a run can be replayed.
 */
export function demoClockOptions(env: NodeJS.ProcessEnv = process.env): SimClockOptions {
  const scale = Number(env.CLOUDSIM_TIME_SCALE ?? '0.01');
  const seed = env.CLOUDSIM_SEED !== undefined ? Number(env.CLOUDSIM_SEED) : undefined;
  return {
    timeScale: Number.isFinite(scale) && scale >= 0 ? scale : 0.01,
    ...(seed !== undefined && Number.isFinite(seed) ? { seed } : {}),
    log: (m) => console.error(m),
  };
}

export interface EmbeddedSim {
  keystone: KeystoneSim;
  cloud: CloudSims;
  authUrl: string;
  close(): Promise<void>;
}

export async function startEmbeddedSim(opts: {
  host: string;
  /** The host advertised in the catalog and clouds.yaml (default: host). */
  publicHost?: string;
  keystonePort: number;
  apiUrl: string;
  region?: string;
  /** The services' ports; DEFAULT_SIM_PORTS for those absent. */
  ports?: SimPorts;
  /** Timing of the simulated transitions; demoClockOptions() when absent. */
  clock?: SimClockOptions;
  /** Seed, fault rules and state file; cloudOptionsFromEnv() when absent. */
  cloud?: EnvCloudOptions;
}): Promise<EmbeddedSim> {
  const cloudOptions = opts.cloud ?? cloudOptionsFromEnv();
  const base = `http://${opts.publicHost ?? opts.host}:${opts.keystonePort}`;
  const keystone = await createKeystoneSim({
    publicUrl: base,
    region: opts.region ?? 'RegionOne',
    passwords: {
      admin: BUILTIN_USERS.admin.password,
      demo: BUILTIN_USERS.demo.password,
      'demo-reader': BUILTIN_USERS['demo-reader'].password,
      other: BUILTIN_USERS.other.password,
      magnum: SERVICE_USER.password,
    },
    catalog: [{ type: 'container-infra', name: 'magnum', url: `${opts.apiUrl}/v1` }],
  });
  const address = await keystone.app.listen({ host: opts.host, port: opts.keystonePort });
  const port = new URL(address).port;
  const advertised = `http://${opts.publicHost ?? opts.host}:${port}`;
  keystone.setPublicUrl(advertised);
  const authUrl = `${advertised}/v3`;
  let cloud: CloudSims;
  try {
    cloud = await startCloudSims({
      keystone,
      authUrl,
      credentials: { username: SERVICE_USER.username, password: SERVICE_USER.password, projectName: SERVICE_USER.project },
      host: opts.host,
      ...(opts.publicHost ? { publicHost: opts.publicHost } : {}),
      ports: { ...DEFAULT_SIM_PORTS, ...opts.ports },
      clock: opts.clock ?? demoClockOptions(),
      ...cloudOptions,
    });
    if (cloud.restored) console.error(`cloudsim: the cloud was loaded from ${cloudOptions.persist?.file}`);
  } catch (e) {
    await keystone.app.close();
    throw e;
  }
  return {
    keystone,
    cloud,
    authUrl,
    async close() {
      await cloud.close();
      await keystone.app.close();
    },
  };
}

/** clouds.yaml with one entry per built-in user, for `openstack --os-cloud <user> ...`. */
export function writeCloudsYaml(path: string, authUrl: string, region = 'RegionOne'): void {
  const clouds = Object.fromEntries(
    Object.entries(BUILTIN_USERS).map(([user, u]) => [
      user,
      {
        auth: {
          auth_url: authUrl,
          username: user,
          password: u.password,
          project_name: u.project,
          user_domain_name: 'Default',
          project_domain_name: 'Default',
        },
        region_name: region,
        identity_api_version: 3,
        interface: 'public',
      },
    ]),
  );
  writeFileSync(path, `# Written by npm start: the built-in users of the embedded simulator.\n${stringify({ clouds })}`, { mode: 0o600 });
}
