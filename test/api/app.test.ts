// The app as buildApp composes it (src/api/app.ts): a fresh request id on every response, the JSON body
// parser (malformed JSON a 400, an empty octet-stream body on DELETE no 415), trailing slashes and the
// routes' precedence; logs that never hold a token and tie each line to its request and caller; and a
// graceful close that lets an in-flight request (here one waiting on a slow Keystone validation) finish
// and then refuses connections.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/api/app.js';
import { createServices } from '../../src/api/services.js';
import { BUILTIN_USERS, SERVICE_USER } from '../../cloudsim/embedded.js';
import { createKeystoneSim } from '../../cloudsim/keystone/index.js';
import { loadConfig } from '../../src/config.js';
import { passwordToken, TEST_SECRET_KEY, testApp, type TestApp } from '../support/app.js';
import { assertEnvelope, REQUEST_ID } from '../support/api-asserts.js';
import { freshDatabase } from '../support/db.js';
import { closedPort } from '../support/net.js';
import { createOperation } from '../../workers/cluster/create.js';

let t: TestApp;
let token: string;

before(async () => {
  t = await testApp();
  token = await t.token('demo');
});
after(async () => {
  await t.close();
});

/** app.inject() as demo, without a version header unless given. */
const req = (opts: InjectOptions): Promise<LightMyRequestResponse> =>
  t.app.inject({ ...opts, headers: { 'x-auth-token': token, ...(opts.headers ?? {}) } });

async function createTemplate(name: string): Promise<string> {
  const res = await req({ method: 'POST', url: '/v1/clustertemplates', payload: { name, image_id: 'fedora-coreos', coe: 'kubernetes' } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().uuid as string;
}

describe('HTTP plumbing (§0, §2, §9)', () => {
  test('x-openstack-request-id: a fresh req-<uuid4> on every response', async () => {
    const responses = [
      await t.app.inject({ method: 'GET', url: '/' }),
      await t.app.inject({ method: 'GET', url: '/v1' }),
      await t.app.inject({ method: 'GET', url: '/v1/clustertemplates' }), // 401
      await t.app.inject({ method: 'GET', url: '/v1/clustertemplates', headers: { 'x-auth-token': 'garbage' } }), // 401
      await req({ method: 'GET', url: '/v1/clustertemplates' }),
      await req({ method: 'GET', url: '/v1/clustertemplates/nope' }), // 404 from the operation
      await req({ method: 'GET', url: '/v1/nope' }), // 404 unknown route
      await req({ method: 'PUT', url: '/v1/clustertemplates' }), // 405
      await req({ method: 'GET', url: '/v1', headers: { 'openstack-api-version': 'nope' } }), // 406
      await t.app.inject({ method: 'GET', url: '/healthz' }),
    ];
    const ids = responses.map((r) => String(r.headers['x-openstack-request-id']));
    for (const id of ids) assert.match(id, REQUEST_ID);
    assert.equal(new Set(ids).size, ids.length, 'request ids are unique');
  });

  test('malformed JSON body → 400', async () => {
    for (const payload of ['{"name": ', 'not json', '{"a":1}}']) {
      const res = await req({ method: 'POST', url: '/v1/clustertemplates', headers: { 'content-type': 'application/json' }, payload });
      assertEnvelope(res, 400, 'client', 'Request is not in valid JSON format', 'Request is not in valid JSON format.');
    }
  });

  test('DELETE with Content-Type: application/octet-stream and an empty body is not a 415', async () => {
    const headers = { 'content-type': 'application/octet-stream' };
    const missing = await req({ method: 'DELETE', url: '/v1/clustertemplates/no-such-template', headers, payload: '' });
    assertEnvelope(missing, 404, 'client', 'ClusterTemplate no-such-template could not be found');
    const uuid = await createTemplate('octet-stream-delete');
    const res = await req({ method: 'DELETE', url: `/v1/clustertemplates/${uuid}`, headers, payload: '' });
    assert.equal(res.statusCode, 204, res.body);
    assert.equal(res.body, '');
  });

  test('trailing slashes are accepted', async () => {
    const uuid = await createTemplate('trailing');
    for (const url of ['/v1/clustertemplates/', '/v1/clustertemplates/detail/', `/v1/clustertemplates/${uuid}/`, '/clustertemplates/']) {
      const res = await req({ method: 'GET', url });
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
    }
    const res = await req({ method: 'DELETE', url: `/v1/clustertemplates/${uuid}/` });
    assert.equal(res.statusCode, 204, res.body);
  });

  test('/v1/clustertemplates/detail wins over a template named "detail"', async () => {
    const uuid = await createTemplate('detail');
    const res = await req({ method: 'GET', url: '/v1/clustertemplates/detail' });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.ok(Array.isArray(body.clustertemplates), 'a list, not the template');
    assert.ok(body.clustertemplates.some((ct: { uuid: string }) => ct.uuid === uuid));
    const byUuid = await req({ method: 'GET', url: `/v1/clustertemplates/${uuid}` });
    assert.equal(byUuid.json().name, 'detail');
  });
});

describe('logs', () => {
  test('never contain a token; every line of a request has its id and, after auth, the caller', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    const config = { ...t.config, logLevel: 'trace' };
    const services = await createServices(config, { steps: createOperation.steps });
    const app = await buildApp(config, { services, logStream: sink });
    try {
      await app.ready();
      const demo = await t.token('demo');
      const admin = await t.token('admin');
      const bogus = `gAAAAAB${randomBytes(24).toString('hex')}`;
      const projectOf = (user: string) => t.keystone.state.projectId(user);
      const calls: { token: string | undefined; project: string | null; run: (token?: string) => Promise<LightMyRequestResponse> }[] = [
        { token: demo, project: projectOf('demo'), run: (tok) => app.inject({ method: 'GET', url: '/v1/clustertemplates', headers: { 'x-auth-token': tok! } }) },
        { token: demo, project: projectOf('demo'), run: (tok) => app.inject({ method: 'GET', url: '/v1/clustertemplates/nope', headers: { 'x-auth-token': tok! } }) },
        {
          token: demo,
          project: projectOf('demo'),
          run: (tok) => app.inject({ method: 'POST', url: '/v1/clustertemplates', headers: { 'x-auth-token': tok!, 'x-subject-token': tok! }, payload: { coe: 'kubernetes', bogus: 1 } }),
        },
        { token: admin, project: projectOf('admin'), run: (tok) => app.inject({ method: 'GET', url: '/v1/clustertemplates/detail', headers: { 'x-auth-token': tok!, authorization: `Bearer ${tok}` } }) },
        { token: bogus, project: null, run: (tok) => app.inject({ method: 'GET', url: '/v1/clustertemplates', headers: { 'x-auth-token': tok! } }) },
        { token: undefined, project: null, run: () => app.inject({ method: 'GET', url: '/v1/clustertemplates' }) },
      ];
      const seen: { id: string; project: string | null }[] = [];
      for (const c of calls) {
        const res = await c.run(c.token);
        seen.push({ id: String(res.headers['x-openstack-request-id']), project: c.project });
      }
      assert.equal(seen.map((s) => s.id).length, new Set(seen.map((s) => s.id)).size);
      assert.ok(lines.length >= calls.length * 2, `expected request logs, got ${lines.length} lines`);

      for (const secret of [demo, admin, bogus]) {
        for (const line of lines) assert.ok(!line.includes(secret), `a log line holds a token: ${line}`);
      }
      const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      for (const { id, project } of seen) {
        const mine = parsed.filter((l) => l.reqId === id);
        assert.ok(mine.length >= 2, `request ${id} has its lines`);
        assert.equal(mine[0]!.msg, 'incoming request');
        assert.equal(mine.at(-1)!.msg, 'request completed');
        if (project !== null) {
          for (const l of mine.slice(1)) assert.equal(l.project, project, `line after auth without the project: ${JSON.stringify(l)}`);
        }
      }
      const ids = new Set(seen.map((s) => s.id));
      for (const l of parsed) assert.ok(typeof l.reqId === 'string' && ids.has(l.reqId), `a log line without a request id: ${JSON.stringify(l)}`);
      assert.ok(parsed.some((l) => l.msg === 'token refused'), 'the refused token is logged (without the token)');
    } finally {
      await app.close();
      await services.close();
    }
  });

  test('Keystone being unreachable is logged without the token', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    const config = { ...t.config, logLevel: 'info', keystone: { ...t.config.keystone, authUrl: `http://127.0.0.1:${await closedPort()}/v3` } };
    const services = await createServices(config, { steps: createOperation.steps });
    const app = await buildApp(config, { services, logStream: sink });
    try {
      const token = await t.token('demo');
      const res = await app.inject({ method: 'GET', url: '/v1/clustertemplates', headers: { 'x-auth-token': token } });
      assert.equal(res.statusCode, 503, res.body);
      const id = res.headers['x-openstack-request-id'];
      assert.ok(lines.length > 0);
      for (const line of lines) {
        assert.ok(!line.includes(token), `a log line holds the token: ${line}`);
        assert.equal(JSON.parse(line).reqId, id);
      }
      assert.ok(lines.some((l) => JSON.parse(l).msg === 'keystone unavailable'));
    } finally {
      await app.close();
      await services.close();
    }
  });
});

describe('graceful close', () => {
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
});
