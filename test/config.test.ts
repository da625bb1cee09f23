// Typed configuration read once from the environment (src/config.ts): what must be set, the defaults, the
// kinds of values (URLs, integers in their ranges, booleans, one of a list, keys), each refused with its
// variable named; the workers' timing knobs; what the migrate mode reads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig, loadMigrateConfig } from '../src/config.js';
import { TEST_SECRET_KEY } from './support/app.js';

const base = { DATABASE_URL: 'postgres://db.example/m', REDIS_URL: 'redis://redis.example', KEYSTONE_URL: 'http://ks.example/v3', SERVICE_PASSWORD: 'x', SECRET_KEYS: TEST_SECRET_KEY };

test('worker lock and poll: 30 s and 2 s by default, as set otherwise', () => {
  const d = loadConfig(base);
  assert.deepEqual([d.workerLockMs, d.workerPollMs], [30_000, 2000]);
  const set = loadConfig({ ...base, WORKER_LOCK_MS: '5000', WORKER_POLL_MS: '250' });
  assert.deepEqual([set.workerLockMs, set.workerPollMs], [5000, 250]);
});

test('health pass: every minute by default, as set otherwise, 0 for never', () => {
  assert.equal(loadConfig(base).healthIntervalMs, 60_000);
  assert.equal(loadConfig({ ...base, HEALTH_INTERVAL_MS: '300000' }).healthIntervalMs, 300_000);
  assert.equal(loadConfig({ ...base, HEALTH_INTERVAL_MS: '0' }).healthIntervalMs, 0);
});

for (const [name, value] of [['WORKER_LOCK_MS', '999'], ['WORKER_LOCK_MS', 'soon'], ['WORKER_POLL_MS', '5'], ['WORKER_POLL_MS', '-1'], ['HEALTH_INTERVAL_MS', 'hourly'], ['HEALTH_INTERVAL_MS', '-5']] as const) {
  test(`${name}=${value} is refused`, () => {
    assert.throws(() => loadConfig({ ...base, [name]: value }), (e) => e instanceof ConfigError && e.message.startsWith(`${name} must be an integer between`));
  });
}

const refused = (env: Record<string, string | undefined>, message: string) =>
  assert.throws(() => loadConfig({ ...base, ...env }), (e: unknown) => e instanceof ConfigError && e.message === message);

test('what must be set: the database, Redis, Keystone, the service password and the sealing keys', () => {
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'KEYSTONE_URL', 'SERVICE_PASSWORD']) refused({ [name]: undefined }, `${name} must be set`);
  refused({ SECRET_KEYS: undefined }, 'SECRET_KEYS: SECRET_KEYS must be set');
  refused({ DATABASE_URL: '' }, 'DATABASE_URL must be set');
});

test('defaults: the API on 127.0.0.1:9511, public interface, checks off, Magnum’s limits', () => {
  const c = loadConfig(base);
  assert.deepEqual(c.api, { host: '127.0.0.1', port: 9511, trustedProxies: [], publicUrl: undefined });
  assert.deepEqual([c.openstack.interface, c.openstack.region, c.cloudResourceChecks], ['public', undefined, false]);
  assert.deepEqual([c.maxLimit, c.maxClustersPerProject, c.limits.maxNodeCount, c.limits.maxMasterCount], [1000, 20, 1000, 7]);
  assert.deepEqual(c.keystone.service, { username: 'magnum', password: 'x', projectName: 'service', userDomainName: 'Default', projectDomainName: 'Default' });
  assert.equal(c.secretKeys.length, 1);
  assert.equal(c.templateCache.maxListBytes, 32 * 1024 * 1024);
  assert.equal(c.keystone.authUrl, 'http://ks.example/v3');
});

test('values: booleans in their spellings, integers in range, one of a list, URLs, JWS key files read', () => {
  for (const [raw, want] of [['yes', true], ['ON', true], ['1', true], ['no', false], ['False', false], ['0', false]] as const) {
    assert.equal(loadConfig({ ...base, CLOUD_RESOURCE_CHECKS: raw }).cloudResourceChecks, want, raw);
  }
  refused({ CLOUD_RESOURCE_CHECKS: 'maybe' }, 'CLOUD_RESOURCE_CHECKS must be a boolean, got "maybe"');
  refused({ API_PORT: '70000' }, 'API_PORT must be an integer between 0 and 65535, got "70000"');
  refused({ MAX_NODE_COUNT: '5001' }, 'MAX_NODE_COUNT must be an integer between 1 and 5000, got "5001"');
  refused({ API_PORT: '1.5' }, 'API_PORT must be an integer between 0 and 65535, got "1.5"');
  assert.equal(loadConfig({ ...base, OPENSTACK_INTERFACE: 'internal', OPENSTACK_REGION: 'RegionTwo' }).openstack.region, 'RegionTwo');
  refused({ OPENSTACK_INTERFACE: 'private' }, 'OPENSTACK_INTERFACE must be one of public, internal, admin, got "private"');
  refused({ REDIS_URL: 'redis' }, 'REDIS_URL must be a URL, got "redis"');
  refused({ SECRET_KEYS: 'c2hvcnQ=' }, 'SECRET_KEYS: each key must be 32 bytes, base64-encoded');
  const read: string[] = [];
  const c = loadConfig({ ...base, KEYSTONE_JWS_PUBLIC_KEYS: ' /a.pem , /b.pem ' }, (p) => (read.push(p), `PEM of ${p}`));
  assert.deepEqual([read, c.keystone.jwsPublicKeys], [['/a.pem', '/b.pem'], ['PEM of /a.pem', 'PEM of /b.pem']]);
  assert.throws(() => loadConfig({ ...base, KEYSTONE_JWS_PUBLIC_KEYS: '/nonexistent/key.pem' }), (e: unknown) => e instanceof ConfigError && /^cannot read JWS public key \/nonexistent\/key\.pem: /.test(e.message));
});

test('node material: the API’s own address by default (IPv6 bracketed, 0.0.0.0 as loopback), 15 minutes; an http(s) URL, a TTL in range and a readable CA file', () => {
  assert.deepEqual(loadConfig(base).nodeMaterial, { url: 'http://127.0.0.1:9511', caCert: undefined, ttlMs: 900_000 });
  assert.equal(loadConfig({ ...base, API_HOST: '::1', API_PORT: '8000' }).nodeMaterial.url, 'http://[::1]:8000');
  assert.equal(loadConfig({ ...base, API_HOST: '0.0.0.0' }).nodeMaterial.url, 'http://127.0.0.1:9511');
  const read: string[] = [];
  const c = loadConfig({ ...base, NODE_MATERIAL_URL: 'https://magnum.example.org:9511/', NODE_MATERIAL_CA_FILE: '/ca.pem', NODE_MATERIAL_TTL_S: '60' }, (p) => (read.push(p), 'PEM'));
  assert.deepEqual([c.nodeMaterial, read], [{ url: 'https://magnum.example.org:9511', caCert: 'PEM', ttlMs: 60_000 }, ['/ca.pem']]);
  for (const u of ['ftp://m', 'https://m?a=1', 'https://m#x', 'https://u:p@m']) refused({ NODE_MATERIAL_URL: u }, `NODE_MATERIAL_URL must be an http(s) URL without query, fragment or credentials, got "${u}"`);
  assert.throws(() => loadConfig({ ...base, NODE_MATERIAL_TTL_S: '10' }), /NODE_MATERIAL_TTL_S/);
  assert.throws(() => loadConfig({ ...base, NODE_MATERIAL_CA_FILE: '/nonexistent/ca.pem' }), (e: unknown) => e instanceof ConfigError && /^cannot read NODE_MATERIAL_CA_FILE \/nonexistent\/ca\.pem: /.test(e.message));
});

test('the migrate mode reads the database alone, and an admin URL when given', () => {
  assert.deepEqual(loadMigrateConfig({ DATABASE_URL: 'postgres://db/m' }), { databaseUrl: 'postgres://db/m', databaseAdminUrl: undefined });
  assert.deepEqual(loadMigrateConfig({ DATABASE_URL: 'postgres://db/m', DATABASE_ADMIN_URL: 'postgres://db/postgres' }).databaseAdminUrl, 'postgres://db/postgres');
  assert.throws(() => loadMigrateConfig({}), /DATABASE_URL must be set/);
  assert.throws(() => loadMigrateConfig({ DATABASE_URL: 'postgres://db/m', DATABASE_ADMIN_URL: 'x' }), /DATABASE_ADMIN_URL must be a URL/);
});

test('TRUSTED_PROXIES: none by default; addresses and CIDRs of either family; anything else stops the start', () => {
  assert.deepEqual(loadConfig(base).api.trustedProxies, []);
  assert.deepEqual(loadConfig({ ...base, TRUSTED_PROXIES: ' 10.0.0.5, 10.1.0.0/16,fd00::/8 ,::1' }).api.trustedProxies, ['10.0.0.5', '10.1.0.0/16', 'fd00::/8', '::1']);
  for (const bad of ['10.0.0.0/33', 'proxy.example', '10.0.0.1/8/8', 'fd00::/129', '*', '10.0.0.0/']) {
    assert.throws(() => loadConfig({ ...base, TRUSTED_PROXIES: bad }), (e) => e instanceof ConfigError && e.message.startsWith('TRUSTED_PROXIES must be'), bad);
  }
});

test('API_PUBLIC_URL: unset by default; an http(s) URL without query, fragment or credentials', () => {
  assert.equal(loadConfig(base).api.publicUrl, undefined);
  assert.equal(loadConfig({ ...base, API_PUBLIC_URL: 'https://magnum.example.com/' }).api.publicUrl, 'https://magnum.example.com');
  assert.equal(loadConfig({ ...base, API_PUBLIC_URL: 'https://cloud.example.com/container-infra' }).api.publicUrl, 'https://cloud.example.com/container-infra');
  for (const bad of ['magnum.example.com', 'ftp://x.example', 'https://x.example/?a=1', 'https://u:p@x.example']) {
    assert.throws(() => loadConfig({ ...base, API_PUBLIC_URL: bad }), (e) => e instanceof ConfigError && e.message.startsWith('API_PUBLIC_URL must be'), bad);
  }
});

test('OPENSTACK_API_ATTEMPTS: the pre-checks try a failing read 3 times by default, 1 to 10 as set', () => {
  assert.equal(loadConfig(base).openstack.apiAttempts, 3);
  assert.equal(loadConfig({ ...base, OPENSTACK_API_ATTEMPTS: '1' }).openstack.apiAttempts, 1);
  for (const bad of ['0', '11', 'many']) {
    assert.throws(() => loadConfig({ ...base, OPENSTACK_API_ATTEMPTS: bad }), (e) => e instanceof ConfigError && e.message.startsWith('OPENSTACK_API_ATTEMPTS must be'), bad);
  }
});

test('CLIENT_CERT_TTL_DAYS: signed certificates live 30 days at most by default, 1 to 1825 as set', () => {
  assert.equal(loadConfig(base).clientCertTtlDays, 30);
  assert.equal(loadConfig({ ...base, CLIENT_CERT_TTL_DAYS: '1' }).clientCertTtlDays, 1);
  for (const bad of ['0', '1826', 'month']) {
    assert.throws(() => loadConfig({ ...base, CLIENT_CERT_TTL_DAYS: bad }), (e) => e instanceof ConfigError && e.message.startsWith('CLIENT_CERT_TTL_DAYS must be'), bad);
  }
});
