// Where the test cloud lives and what it listens on: the state folder, each service's folder and files, the
// loopback ports, the (test-only) passwords. Pure data, no side effects but finding the state folder.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const HOST = '127.0.0.1';
export const REGION = 'RegionOne';
/** The Python packages of Debian; another python3 may come first on PATH. */
export const PYTHON = '/usr/bin/python3';

const CHECKOUT_HASH = createHash('sha256').update(REPO_ROOT).digest('hex').slice(0, 12);

/**
 * Ports are fixed per checkout so that a cloud started by one test run is found by the next: a base below the
 * kernel's ephemeral range (32768+), picked from the checkout's path (two checkouts rarely share one), or
 * REAL_OPENSTACK_PORT_BASE.
 */
export function portBase(): number {
  const env = process.env.REAL_OPENSTACK_PORT_BASE;
  if (env) {
    const n = Number(env);
    if (!Number.isInteger(n) || n < 1024 || n > 65400) throw new Error(`REAL_OPENSTACK_PORT_BASE=${env} is not a port base`);
    return n;
  }
  return 20000 + (parseInt(CHECKOUT_HASH.slice(0, 8), 16) % 80) * 100;
}

export interface Ports {
  keystone: number;
  placement: number;
  nova: number;
  neutron: number;
  octavia: number;
  glance: number;
  cinder: number;
  mariadb: number;
  rabbitmq: number;
  rabbitmqDist: number;
  epmd: number;
}

export function ports(base = portBase()): Ports {
  return {
    keystone: base, placement: base + 1, nova: base + 2, neutron: base + 3, octavia: base + 4, glance: base + 5,
    cinder: base + 6, mariadb: base + 10, rabbitmq: base + 11, rabbitmqDist: base + 12, epmd: base + 13,
  };
}

/** Test-only secrets: the cloud binds loopback only and holds nothing. */
export const SECRETS = {
  db: 'realos-db-secret',
  rabbit: 'realos-rabbit-secret',
  admin: 'admin-secret',
  octaviaCa: 'realos-octavia-ca-secret',
  // Octavia wants exactly 32 characters (a Fernet key's material).
  octaviaServerCerts: 'realos-server-certs-32-chars-key',
} as const;

/** The OpenStack services' own users (in project `service`), each with roles admin and service. */
export const SERVICE_USERS = ['nova', 'neutron', 'placement', 'glance', 'octavia', 'cinder'] as const;
export type ServiceUser = (typeof SERVICE_USERS)[number];
export const servicePassword = (user: string) => `${user}-realos-secret`;

/** The databases, one per service (Nova's three). */
export const DATABASES = ['keystone', 'placement', 'nova_api', 'nova_cell0', 'nova', 'neutron', 'octavia', 'glance', 'cinder'] as const;

export function dbUrl(p: Ports, db: string): string {
  return `mysql+pymysql://openstack:${SECRETS.db}@${HOST}:${p.mariadb}/${db}?charset=utf8mb4`;
}

export function rabbitUrl(p: Ports): string {
  return `rabbit://openstack:${SECRETS.rabbit}@${HOST}:${p.rabbitmq}/`;
}

export const url = (port: number, path = '') => `http://${HOST}:${port}${path}`;

/** Folders of one cloud under the state folder. */
export interface Layout {
  base: string; // the state folder (root-owned, 755)
  lockFile: string;
  live: string; // the running cloud's files: one folder per service
  pristine: string; // the one-time bring-up, copied into `live` at each cold start
  python: string; // the Python glue (ML2 driver, Octavia network driver) and its entry points
  stamp: string; // what the running cloud was started from (configuration hash)
  ports: Ports;
}

export function layoutOf(base: string, p: Ports = ports()): Layout {
  return {
    base,
    lockFile: join(base, 'lock'),
    live: join(base, 'live'),
    pristine: join(base, 'pristine'),
    python: join(base, 'python'),
    stamp: join(base, 'live', 'STAMP'),
    ports: p,
  };
}

/** One service's folder in the live cloud. */
export const dirOf = (l: Layout, service: string) => join(l.live, service);

/** The system users the daemons run as (created by the Debian packages). */
export const DAEMON_USERS = ['mysql', 'rabbitmq', 'keystone', 'placement', 'nova', 'neutron', 'octavia', 'glance', 'cinder'] as const;
export type DaemonUser = (typeof DAEMON_USERS)[number];

let stateReady: Promise<string> | undefined;

/**
 * The state folder: <repo>/.local/openstack when every daemon user can reach into it, else a folder of this
 * checkout's own, /var/tmp/magnum-ts-openstack-<hash of the checkout's path> (a clone under /root or in a
 * mktemp -d folder).
 */
export function stateDir(): Promise<string> {
  stateReady ??= (async () => {
    const preferred = join(REPO_ROOT, '.local', 'openstack');
    await mkdir(preferred, { recursive: true });
    for (const p of [preferred, join(REPO_ROOT, '.local')]) await chmod(p, 0o755).catch(() => undefined);
    const reach = await Promise.all(
      DAEMON_USERS.map((u) => run('runuser', ['-u', u, '--', 'test', '-x', preferred]).then(() => true, () => false)),
    );
    if (reach.every(Boolean)) return preferred;
    const fallback = join('/var/tmp', `magnum-ts-openstack-${CHECKOUT_HASH}`);
    await mkdir(fallback, { recursive: true, mode: 0o755 });
    await chmod(fallback, 0o755);
    return fallback;
  })().catch((e) => {
    stateReady = undefined;
    throw e;
  });
  return stateReady;
}
