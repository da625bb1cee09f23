// The built portal under /ui/ (src/api/portal/static.ts), by inject(): index.html never cached, hashed
// assets immutable, deep links answered with the app, security headers, no way out of the build folder.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testApp, type TestApp } from '../../support/app.js';

let t: TestApp;
let dist: string;

before(async () => {
  dist = await mkdtemp(join(tmpdir(), 'portal-dist-'));
  await mkdir(join(dist, 'assets'));
  await writeFile(join(dist, 'index.html'), '<!doctype html><title>Magnum</title><script type="module" src="/ui/assets/app-ABCD1234.js"></script>');
  await writeFile(join(dist, 'assets', 'app-ABCD1234.js'), 'console.log(1)');
  t = await testApp({ config: (c) => (c.portal = { perClient: 50, perUser: 4, windowSeconds: 60 }), portal: { distDir: dist } });
});
after(async () => {
  await t?.close();
  await rm(dist, { recursive: true, force: true });
});

test('/ui/ serves the built app: index.html never cached, hashed assets immutable, deep links load the app, / stays JSON', async () => {
  for (const url of ['/ui/', '/ui/p/abc/clusters/6f1d7f4e-2c52-4f0e-9a3e-1b1f0b6f2a10', '/ui/login']) {
    const r = await t.app.inject({ method: 'GET', url });
    assert.equal(r.statusCode, 200, url);
    assert.match(r.headers['content-type'] as string, /text\/html/);
    assert.equal(r.headers['cache-control'], 'no-cache');
    assert.match(r.body, /app-ABCD1234\.js/);
    const csp = r.headers['content-security-policy'] as string;
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.equal(r.headers['x-content-type-options'], 'nosniff');
    assert.equal(r.headers['referrer-policy'], 'no-referrer');
  }
  const asset = await t.app.inject({ method: 'GET', url: '/ui/assets/app-ABCD1234.js' });
  assert.equal(asset.statusCode, 200);
  assert.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable');
  assert.equal(asset.headers['x-content-type-options'], 'nosniff');
  assert.equal((await t.app.inject({ method: 'GET', url: '/ui/assets/missing-ABCD1234.js' })).statusCode, 404);
  const escape = await t.app.inject({ method: 'GET', url: '/ui/assets/%2e%2e/%2e%2e/package.json' });
  assert.notEqual(escape.statusCode, 200, 'no way out of the build folder');
  assert.doesNotMatch(escape.body, /magnum-ts/);
  const root = await t.app.inject({ method: 'GET', url: '/' });
  assert.equal(root.statusCode, 200);
  assert.equal(root.json().versions[0].id, 'v1');
});
