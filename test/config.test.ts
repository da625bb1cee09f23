// The workers' timing knobs (WORKER_LOCK_MS, WORKER_POLL_MS, HEALTH_INTERVAL_MS): defaults, values, and bad values
// stopping the start with the variable named (src/config.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../src/config.js';
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
