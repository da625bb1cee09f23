// Operational endpoints (liveness, readiness, metrics, OpenAPI and its UI) and what the logs may hold.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/api/app.js';
import { createServices } from '../../src/api/services.js';
import { testApp, type TestApp } from '../support/app.js';
import { closedPort } from '../support/net.js';
import { createOperation } from '../../workers/cluster/create.js';

let t: TestApp;

before(async () => {
  t = await testApp();
});
after(async () => {
  await t.close();
});

/** The samples of one metric family in Prometheus' text format: labels and value. */
function samples(text: string, name: string): { labels: Record<string, string>; value: number }[] {
  const out: { labels: Record<string, string>; value: number }[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ labels, value: Number(m[3]) });
  }
  return out;
}

const sum = (xs: { value: number }[]): number => xs.reduce((a, x) => a + x.value, 0);

async function metricsText(): Promise<string> {
  const res = await t.app.inject({ method: 'GET', url: '/metrics' });
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /^text\/plain/);
  return res.body;
}

describe('health', () => {
  test('/healthz → 200 without a token', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { status: 'ok' });
  });

  test('/readyz → 200 with database, redis and keystone ok, without a token', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { status: 'ok', checks: { database: 'ok', redis: 'ok', keystone: 'ok' } });
  });

  test('/readyz → 503 naming keystone when Keystone is down; /healthz stays 200', async () => {
    const down = await testApp();
    try {
      await down.keystone.app.close();
      const res = await down.app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(res.statusCode, 503, res.body);
      assert.deepEqual(res.json(), { status: 'unavailable', checks: { database: 'ok', redis: 'ok', keystone: 'unavailable' } });
      assert.equal((await down.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
    } finally {
      await down.close();
    }
  });
});

describe('metrics', () => {
  test('/metrics without a token exposes request durations by route and status', async () => {
    const tpl = await t.as('demo', { method: 'GET', url: '/v1/clustertemplates/no-such-template' });
    assert.equal(tpl.statusCode, 404);
    assert.equal((await t.as('demo', { method: 'GET', url: '/v1/clustertemplates' })).statusCode, 200);
    assert.equal((await t.app.inject({ method: 'GET', url: '/v1/clustertemplates' })).statusCode, 401);
    const text = await metricsText();
    const counts = samples(text, 'http_request_duration_seconds_count');
    const find = (route: string, status: string) =>
      counts.find((s) => s.labels.method === 'GET' && s.labels.route === route && s.labels.status === status);
    assert.ok((find('/v1/clustertemplates', '200')?.value ?? 0) >= 1, 'list 200 observed');
    assert.ok((find('/v1/clustertemplates', '401')?.value ?? 0) >= 1, 'list 401 observed');
    // The route label is the pattern, never the raw path (bounded cardinality).
    assert.ok((find('/v1/clustertemplates/:ident', '404')?.value ?? 0) >= 1, 'show 404 observed under its pattern');
    assert.ok(!text.includes('no-such-template'));
    assert.ok(samples(text, 'http_request_duration_seconds_bucket').length > 0);
  });

  test('an unknown path is not a label value', async () => {
    const res = await t.as('demo', { method: 'GET', url: '/v1/made-up-path-for-metrics' });
    assert.equal(res.statusCode, 404);
    const text = await metricsText();
    assert.ok(!text.includes('made-up-path-for-metrics'));
  });

  test('token cache hits and misses, Keystone call durations', async () => {
    const before = await metricsText();
    const cache = (text: string, result: string) => sum(samples(text, 'keystone_token_cache_total').filter((s) => s.labels.result === result));
    const keystoneCalls = (text: string) =>
      sum(samples(text, 'keystone_request_duration_seconds_count').filter((s) => s.labels.operation === 'validate_token' && s.labels.outcome === '200'));
    const fresh = await t.token('demo');
    for (let i = 0; i < 3; i++) {
      const res = await t.app.inject({ method: 'GET', url: '/v1/clustertemplates', headers: { 'x-auth-token': fresh } });
      assert.equal(res.statusCode, 200, res.body);
    }
    const after = await metricsText();
    assert.equal(cache(after, 'miss') - cache(before, 'miss'), 1);
    assert.equal(cache(after, 'hit') - cache(before, 'hit'), 2);
    assert.equal(keystoneCalls(after) - keystoneCalls(before), 1);
    assert.ok(samples(after, 'keystone_request_duration_seconds_bucket').some((s) => s.labels.operation === 'validate_token'));
    assert.ok(samples(after, 'keystone_request_duration_seconds_sum').some((s) => s.labels.operation === 'validate_token'));
  });

  test('a refused token shows up as a Keystone call with outcome 404', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/clustertemplates', headers: { 'x-auth-token': 'not-a-token' } });
    assert.equal(res.statusCode, 401);
    const text = await metricsText();
    assert.ok(sum(samples(text, 'keystone_request_duration_seconds_count').filter((s) => s.labels.outcome === '404')) >= 1);
  });
});

describe('OpenAPI', () => {
  test('/v1/openapi.json is served without a token, whatever the version header', async () => {
    for (const headers of [{}, { 'openstack-api-version': 'garbage' }]) {
      const res = await t.app.inject({ method: 'GET', url: '/v1/openapi.json', headers });
      assert.equal(res.statusCode, 200, res.body);
      const doc = res.json();
      assert.match(doc.openapi, /^3\./);
      assert.ok(doc.paths['/v1/clustertemplates'], 'documents the template collection');
      assert.equal(doc.paths['/healthz'], undefined, 'ops endpoints are hidden');
    }
  });

  test('/v1/docs (the UI) is served without a token', async () => {
    for (const url of ['/v1/docs', '/v1/docs/']) {
      const res = await t.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      assert.match(String(res.headers['content-type']), /^text\/html/);
      assert.match(res.body, /swagger-ui/i);
    }
    // A query string does not make the UI private (unknown arguments are refused as everywhere, but not with a 401).
    assert.notEqual((await t.app.inject({ method: 'GET', url: '/v1/docs?x=1' })).statusCode, 401);
    const json = await t.app.inject({ method: 'GET', url: '/v1/docs/json' });
    assert.equal(json.statusCode, 200);
    assert.match(json.json().openapi, /^3\./);
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
