// Typed configuration, read once from the environment and validated at boot.
// Behaviour never branches on NODE_ENV: every switch here is explicit.
import { readFileSync } from 'node:fs';
import type { DbTimeouts } from './db/data-source.js';
import { BODY_LIMIT_DEFAULT, MASTER_COUNT_CEILING, NODE_COUNT_CEILING } from './domain/limits.js';
import { parseSecretKeys } from './security/secret-box.js';

export interface ServiceCredentials {
  username: string;
  password: string;
  projectName: string;
  userDomainName: string;
  projectDomainName: string;
}

export interface Config {
  api: { host: string; port: number };
  databaseUrl: string;
  redisUrl: string;
  keystone: {
    /** Keystone v3 URL, ending in /v3 (e.g. http://127.0.0.1:5000/v3). */
    authUrl: string;
    service: ServiceCredentials;
    /** Upper bound on how long a validated token is trusted without asking Keystone again. */
    tokenCacheTtlSeconds: number;
    /** Number of validated tokens kept in memory at most. */
    tokenCacheSize: number;
    /** SPKI PEM public keys of Keystone's JWS provider; empty when tokens are not JWS. */
    jwsPublicKeys: string[];
    /** Timeout of one call to Keystone, in milliseconds. */
    timeoutMs: number;
  };
  /** Largest page a list returns ([api] max_limit). */
  maxLimit: number;
  /** What one request may ask for: nodes of a node group, control planes of a cluster, body bytes. */
  limits: { maxNodeCount: number; maxMasterCount: number; bodyLimit: number };
  /** Check images, flavors and networks named by templates against Glance, Nova and Neutron. */
  cloudResourceChecks: boolean;
  /** How the OpenStack clients pick endpoints from the caller's catalog, and their call timeout. */
  openstack: { interface: 'public' | 'internal' | 'admin'; region: string | undefined; timeoutMs: number };
  /** Per-process read cache of templates (invalidated through PostgreSQL NOTIFY). */
  templateCache: { enabled: boolean; maxRows: number; maxListBytes: number };
  /** Operations one worker process runs at once. */
  workerConcurrency: number;
  /** How often the deployment's health pass checks every settled cluster (HEALTH_INTERVAL_MS); 0: never. */
  healthIntervalMs: number;
  /**
   * How long a worker's claim on a job and on a cluster lasts without renewal (WORKER_LOCK_MS): a
   * killed worker's runs are taken over after about this long, and a worker whose event loop
   * stalls this long loses them. Stalled jobs are looked for at the same interval.
   */
  workerLockMs: number;
  /** How long a step waiting for the cloud waits before it looks again (WORKER_POLL_MS). */
  workerPollMs: number;
  /** Where a `worker` process answers its probes (GET /healthz, /readyz); port 0: no probe server. */
  workerHealth: { host: string; port: number };
  logLevel: string;
  /** BullMQ key prefix of the operations queue (QUEUE_PREFIX). */
  queuePrefix: string;
  /** How often the relay looks for operations not in the queue (OPERATION_SWEEP_MS). */
  operationSweepMs: number;
  /** Seconds after which a worker without a heartbeat is shown `down` (SERVICE_DOWN_TIME). */
  serviceDownTime: number;
  /** Clusters per project when no quota row says otherwise ([quotas] max_clusters_per_project). */
  maxClustersPerProject: number;
  /** Keys sealing secrets at rest (SECRET_KEYS): the first seals, all open. */
  secretKeys: Buffer[];
  /** Portal login attempts allowed per client address and per user in a window (PORTAL_LOGIN_*). */
  portal: { perClient: number; perUser: number; windowSeconds: number };
  /** How long a closing API or worker waits for running work, Redis and PostgreSQL before it disconnects (SHUTDOWN_TIMEOUT_MS). */
  shutdownTimeoutMs: number;
  /** PostgreSQL pool: connect timeout, statement_timeout, idle_in_transaction_session_timeout (ms; 0 = none). */
  db: DbTimeouts;
  /** The worker's calls to a cluster's Kubernetes API (a server the tenant controls): their bounds. */
  kube: { timeoutMs: number; idleTimeoutMs: number; maxResponseBytes: number };
  /**
   * Where a node fetches its secrets at first boot (its user-data carries none): this API's address as the nodes
   * reach it (NODE_MATERIAL_URL, default the API's own listening address), the CA that URL's certificate must
   * chain to (NODE_MATERIAL_CA_FILE, carried in the user-data and pinned by the node; none: the node's own trust),
   * and how long a node's one-time token lives (NODE_MATERIAL_TTL_S).
   */
  nodeMaterial: { url: string; caCert: string | undefined; ttlMs: number };
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function str(env: Env, name: string, fallback?: string): string {
  const v = env[name];
  if (v !== undefined && v !== '') return v;
  if (fallback !== undefined) return fallback;
  throw new ConfigError(`${name} must be set`);
}

function int(env: Env, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return n;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be a boolean, got "${raw}"`);
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const v = str(env, name, fallback);
  if (!(allowed as readonly string[]).includes(v)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${v}"`);
  return v as T;
}

function url(env: Env, name: string, fallback?: string): string {
  const v = str(env, name, fallback);
  try {
    new URL(v);
  } catch {
    throw new ConfigError(`${name} must be a URL, got "${v}"`);
  }
  return v.replace(/\/+$/, '');
}

/** Reads the configuration; `readPem` loads the JWS key files named by KEYSTONE_JWS_PUBLIC_KEYS. */
export function loadConfig(env: Env = process.env, readPem: (path: string) => string = defaultReadPem): Config {
  const keyFiles = (env.KEYSTONE_JWS_PUBLIC_KEYS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const api = { host: str(env, 'API_HOST', '127.0.0.1'), port: int(env, 'API_PORT', 9511, 0, 65535) };
  const apiHost = api.host === '0.0.0.0' || api.host === '::' ? '127.0.0.1' : api.host;
  return {
    api,
    databaseUrl: url(env, 'DATABASE_URL'),
    redisUrl: url(env, 'REDIS_URL'),
    keystone: {
      authUrl: url(env, 'KEYSTONE_URL'),
      service: {
        username: str(env, 'SERVICE_USERNAME', 'magnum'),
        password: str(env, 'SERVICE_PASSWORD'),
        projectName: str(env, 'SERVICE_PROJECT_NAME', 'service'),
        userDomainName: str(env, 'SERVICE_USER_DOMAIN_NAME', 'Default'),
        projectDomainName: str(env, 'SERVICE_PROJECT_DOMAIN_NAME', 'Default'),
      },
      tokenCacheTtlSeconds: int(env, 'TOKEN_CACHE_TTL', 300, 0, 86400),
      tokenCacheSize: int(env, 'TOKEN_CACHE_SIZE', 10000, 1),
      jwsPublicKeys: keyFiles.map(readPem),
      timeoutMs: int(env, 'KEYSTONE_TIMEOUT_MS', 10000, 1),
    },
    maxLimit: int(env, 'MAX_LIMIT', 1000, 1, 10_000),
    limits: {
      maxNodeCount: int(env, 'MAX_NODE_COUNT', 1000, 1, NODE_COUNT_CEILING),
      maxMasterCount: int(env, 'MAX_MASTER_COUNT', MASTER_COUNT_CEILING, 1, MASTER_COUNT_CEILING),
      bodyLimit: int(env, 'MAX_REQUEST_BODY_BYTES', BODY_LIMIT_DEFAULT, 1024, 16 * 1024 * 1024),
    },
    cloudResourceChecks: bool(env, 'CLOUD_RESOURCE_CHECKS', false),
    openstack: {
      interface: oneOf(env, 'OPENSTACK_INTERFACE', ['public', 'internal', 'admin'] as const, 'public'),
      region: env.OPENSTACK_REGION || undefined,
      timeoutMs: int(env, 'OPENSTACK_TIMEOUT_MS', 10000, 1),
    },
    templateCache: {
      enabled: bool(env, 'TEMPLATE_CACHE', true),
      maxRows: int(env, 'TEMPLATE_CACHE_ROWS', 10000, 1),
      maxListBytes: int(env, 'TEMPLATE_CACHE_MB', 32, 1, 4096) * 1024 * 1024,
    },
    workerConcurrency: int(env, 'WORKER_CONCURRENCY', 4, 1, 256),
    healthIntervalMs: int(env, 'HEALTH_INTERVAL_MS', 60_000, 0, 86_400_000),
    workerLockMs: int(env, 'WORKER_LOCK_MS', 30_000, 1000, 600_000),
    workerPollMs: int(env, 'WORKER_POLL_MS', 2000, 10, 600_000),
    workerHealth: { host: str(env, 'WORKER_HEALTH_HOST', '127.0.0.1'), port: int(env, 'WORKER_HEALTH_PORT', 0, 0, 65535) },
    logLevel: str(env, 'LOG_LEVEL', 'info'),
    queuePrefix: str(env, 'QUEUE_PREFIX', 'bull'),
    operationSweepMs: int(env, 'OPERATION_SWEEP_MS', 5000, 100),
    serviceDownTime: int(env, 'SERVICE_DOWN_TIME', 180, 1),
    maxClustersPerProject: int(env, 'MAX_CLUSTERS_PER_PROJECT', 20, 0),
    secretKeys: secretKeys(env),
    portal: {
      perClient: int(env, 'PORTAL_LOGIN_PER_CLIENT', 30, 1),
      perUser: int(env, 'PORTAL_LOGIN_PER_USER', 10, 1),
      windowSeconds: int(env, 'PORTAL_LOGIN_WINDOW_SECONDS', 300, 1, 86400),
    },
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 100),
    db: {
      connectTimeoutMs: int(env, 'DB_CONNECT_TIMEOUT_MS', 10_000, 0),
      statementTimeoutMs: int(env, 'DB_STATEMENT_TIMEOUT_MS', 30_000, 0),
      idleInTransactionTimeoutMs: int(env, 'DB_IDLE_IN_TRANSACTION_TIMEOUT_MS', 60_000, 0),
    },
    kube: {
      timeoutMs: int(env, 'KUBE_API_TIMEOUT_MS', 30_000, 1000),
      idleTimeoutMs: int(env, 'KUBE_API_IDLE_TIMEOUT_MS', 10_000, 100),
      maxResponseBytes: int(env, 'KUBE_API_MAX_RESPONSE_MB', 64, 1, 4096) * 1024 * 1024,
    },
    nodeMaterial: {
      url: nodeMaterialUrl(url(env, 'NODE_MATERIAL_URL', `http://${apiHost.includes(':') ? `[${apiHost}]` : apiHost}:${api.port}`)),
      caCert: env.NODE_MATERIAL_CA_FILE ? readPem(env.NODE_MATERIAL_CA_FILE) : undefined,
      ttlMs: int(env, 'NODE_MATERIAL_TTL_S', 900, 30, 86_400) * 1000,
    },
  };
}

/** NODE_MATERIAL_URL: http or https, no query or fragment (the node appends the endpoint's path). */
function nodeMaterialUrl(v: string): string {
  const u = new URL(v);
  if (!/^https?:$/.test(u.protocol) || u.search || u.hash || u.username) throw new ConfigError(`NODE_MATERIAL_URL must be an http(s) URL without query, fragment or credentials, got "${v}"`);
  return v;
}

/** What `migrate` needs: the database, and an admin URL to create it with when it does not exist (local setups). */
export function loadMigrateConfig(env: Env = process.env): { databaseUrl: string; databaseAdminUrl: string | undefined } {
  return { databaseUrl: url(env, 'DATABASE_URL'), databaseAdminUrl: env.DATABASE_ADMIN_URL ? url(env, 'DATABASE_ADMIN_URL') : undefined };
}

function secretKeys(env: Env): Buffer[] {
  try {
    return parseSecretKeys(str(env, 'SECRET_KEYS'));
  } catch (e) {
    throw new ConfigError(`SECRET_KEYS: ${(e as Error).message}`);
  }
}

function defaultReadPem(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError(`cannot read ${path}: ${(e as Error).message}`);
  }
}
