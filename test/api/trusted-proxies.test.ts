// Issue 26 item 3: forwarding headers count only from the configured proxies (TRUSTED_PROXIES, none by
// default), and the links of every answer come from API_PUBLIC_URL or the direct request, never from a
// client's X-Forwarded-Host. The client's address the logs and the login limits see is the real peer's.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { testApp, type TestApp } from '../support/app.js';

/** Every `href` anywhere in a document. */
function hrefs(doc: unknown): string[] {
  if (Array.isArray(doc)) return doc.flatMap(hrefs);
  if (doc && typeof doc === 'object') return Object.entries(doc).flatMap(([k, v]) => (k === 'href' && typeof v === 'string' ? [v] : hrefs(v)));
  return [];
}

/** A test app whose log lines are kept (the access log names the client's address). */
async function logged(config: (c: TestApp['config']) => void): Promise<{ t: TestApp; lines: Record<string, any>[] }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const lines: Record<string, any>[] = []; // eslint-disable-line @typescript-eslint/no-explicit-any
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n')) if (l.trim()) lines.push(JSON.parse(l));
      done();
    },
  });
  const t = await testApp({ config: (c) => {
    c.logLevel = 'info';
    config(c);
  }, logStream: sink });
  return { t, lines };
}

const FORWARDED = { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.7' };

/** The address the access log gave the request with this id. */
const peerOf = (lines: Record<string, any>[], reqId: string) => lines.find((l) => l.reqId === reqId && l.req)?.req.remoteAddress; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('no proxy configured (the default)', () => {
  let t: TestApp;
  let lines: Record<string, any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any
  before(async () => ({ t, lines } = await logged(() => undefined)));
  after(() => t.close());

  test('a client’s X-Forwarded-Host and -Proto change no link; its X-Forwarded-For is not its address', async () => {
    assert.deepEqual(t.config.api.trustedProxies, []);
    for (const url of ['/', '/v1']) {
      const r = await t.app.inject({ method: 'GET', url, headers: FORWARDED, remoteAddress: '198.51.100.2' });
      assert.equal(r.statusCode, 200);
      const links = hrefs(r.json());
      assert.ok(links.length > 0);
      assert.deepEqual(links.filter((h) => !h.startsWith('http://localhost:80/')), [], `${url}: ${links.join(' ')}`);
      assert.equal(peerOf(lines, r.headers['x-openstack-request-id'] as string), '198.51.100.2');
    }
    const listed = await t.as('demo', { method: 'GET', url: '/v1/clustertemplates?limit=1', headers: FORWARDED });
    assert.equal(listed.statusCode, 200);
    assert.doesNotMatch(listed.body, /evil\.example|https:/);
  });
});

describe('a proxy configured', () => {
  let t: TestApp;
  let lines: Record<string, any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any
  before(async () => ({ t, lines } = await logged((c) => (c.api.trustedProxies = ['10.9.0.0/16', '127.0.0.1']))));
  after(() => t.close());

  test('from the proxy: the client’s address and scheme count, its X-Forwarded-Host never does', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/v1', headers: FORWARDED, remoteAddress: '10.9.3.4' });
    assert.equal(r.statusCode, 200);
    assert.deepEqual(hrefs(r.json()).filter((h) => !h.startsWith('https://localhost:80/')), []);
    assert.equal(peerOf(lines, r.headers['x-openstack-request-id'] as string), '203.0.113.7');
  });

  test('from anyone else: the headers are the client’s own and count for nothing', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/v1', headers: FORWARDED, remoteAddress: '198.51.100.2' });
    assert.deepEqual(hrefs(r.json()).filter((h) => !h.startsWith('http://localhost:80/')), []);
    assert.equal(peerOf(lines, r.headers['x-openstack-request-id'] as string), '198.51.100.2');
  });
});

describe('a public URL configured', () => {
  let t: TestApp;
  before(async () => ({ t } = await logged((c) => (c.api.publicUrl = 'https://magnum.example.com:13511'))));
  after(() => t.close());

  test('every link starts with it, whatever the request says', async () => {
    for (const url of ['/', '/v1']) {
      const r = await t.app.inject({ method: 'GET', url, headers: { ...FORWARDED, host: 'internal:9511' } });
      assert.deepEqual(hrefs(r.json()).filter((h) => !h.startsWith('https://magnum.example.com:13511/')), []);
    }
  });
});

describe('headers of answers and the access log (issue 26 item 6)', () => {
  let t: TestApp;
  let lines: Record<string, any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any
  before(async () => ({ t, lines } = await logged(() => undefined)));
  after(() => t.close());

  test('every authenticated /v1 answer, error or not, says Cache-Control: no-store', async () => {
    for (const url of ['/v1/clustertemplates', '/v1/clusters', '/v1/stats', '/v1/clusters/nope', '/v1/certificates/nope']) {
      const r = await t.as('demo', { method: 'GET', url });
      assert.equal(r.headers['cache-control'], 'no-store', `${url}: ${r.statusCode}`);
    }
    const anonymous = await t.app.inject({ method: 'GET', url: '/v1' });
    assert.equal(anonymous.headers['cache-control'], undefined, 'the version document may be cached');
  });

  test('/v1/docs: a Content-Security-Policy with its own scripts only, and never framed', async () => {
    for (const url of ['/v1/docs', '/v1/docs/', '/v1/docs/json', '/v1/docs/static/swagger-initializer.js']) {
      const r = await t.app.inject({ method: 'GET', url });
      assert.ok(r.statusCode < 400, `${url}: ${r.statusCode}`);
      const csp = String(r.headers['content-security-policy']);
      assert.match(csp, /(^|; )script-src 'self'(;|$)/, url);
      assert.match(csp, /frame-ancestors 'none'/, url);
      assert.match(csp, /default-src 'none'/, url);
      assert.equal(r.headers['x-frame-options'], 'DENY', url);
      assert.equal(r.headers['x-content-type-options'], 'nosniff', url);
    }
  });

  test('a CSRF token in the query (the portal’s stream URLs) never reaches the log', async () => {
    const secret = 'Zs3cr3tCsrfT0ken-abcdefghijklmnopqrstuvwxyz0';
    const r = await t.app.inject({ method: 'GET', url: `/v1/streams/clusters?project=p1&csrf=${secret}&x=1` });
    assert.equal(r.statusCode, 401);
    const logged = JSON.stringify(lines);
    assert.ok(!logged.includes(secret), 'the token is not logged');
    assert.ok(!logged.includes(encodeURIComponent(secret).slice(0, 20)));
    const line = lines.find((l) => l.reqId === r.headers['x-openstack-request-id'] && l.req);
    assert.equal(line?.req.url, '/v1/streams/clusters?project=p1&csrf=[secret]&x=1');
  });
});
