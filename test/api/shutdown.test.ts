// Graceful shutdown: closing the API lets an in-flight request finish (here one waiting on a
// slow Keystone validation) and refuses new connections.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../../src/api/app.js';
import { createServices } from '../../src/api/services.js';
import { BUILTIN_USERS, SERVICE_USER } from '../../cloudsim/embedded.js';
import { createKeystoneSim } from '../../cloudsim/keystone/index.js';
import { loadConfig } from '../../src/config.js';
import { passwordToken, TEST_SECRET_KEY } from '../support/app.js';
import { freshDatabase } from '../support/db.js';
import { createOperation } from '../../workers/cluster/create.js';

function get(port: number, path: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { 'x-auth-token': token, connection: 'close' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

test('close() waits for the in-flight request and then refuses connections', async () => {
  const keystone = await createKeystoneSim({
    publicUrl: 'http://127.0.0.1',
    passwords: { ...Object.fromEntries(Object.entries(BUILTIN_USERS).map(([u, v]) => [u, v.password])), magnum: SERVICE_USER.password },
  });
  let validationStarted!: () => void;
  const started = new Promise<void>((r) => (validationStarted = r));
  // Token validations (not logins) take 600 ms.
  keystone.app.addHook('onRequest', async (req) => {
    if (req.method === 'GET' && req.url.startsWith('/v3/auth/tokens')) {
      validationStarted();
      await new Promise((r) => setTimeout(r, 600));
    }
  });
  keystone.setPublicUrl(await keystone.app.listen({ host: '127.0.0.1', port: 0 }));
  const db = await freshDatabase();
  const config = loadConfig({
    DATABASE_URL: db.url,
    REDIS_URL: process.env.REDIS_URL,
    KEYSTONE_URL: `http://127.0.0.1:${(keystone.app.server.address() as AddressInfo).port}/v3`,
    SERVICE_PASSWORD: SERVICE_USER.password,
    LOG_LEVEL: 'silent',
    SECRET_KEYS: TEST_SECRET_KEY,
  });
  const services = await createServices(config, { steps: createOperation.steps });
  const app = await buildApp(config, { services, logger: false });
  try {
    await app.listen({ host: '127.0.0.1', port: 0 });
    const port = (app.server.address() as AddressInfo).port;
    const token = await passwordToken(keystone, 'demo', BUILTIN_USERS.demo.password, 'demo');

    const inflight = get(port, '/v1/clustertemplates', token);
    await started;
    let closed = false;
    const closing = app.close().then(() => (closed = true));
    assert.equal(await inflight, 200, 'the in-flight request completes normally');
    await closing;
    assert.equal(closed, true);
    await assert.rejects(get(port, '/v1/clustertemplates', token), /ECONNREFUSED/);
  } finally {
    await app.close();
    await services.close();
    await keystone.app.close();
    await db.drop();
  }
});
