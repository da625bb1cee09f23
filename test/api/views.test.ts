// Small helpers every resource view uses (src/api/views.ts): the request's own scheme and host (X-Forwarded-*
// honoured through the app's trustProxy), Magnum's timestamps, the self and bookmark links.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { hostUrl, isoSeconds, selfLinks } from '../../src/api/views.js';

test('hostUrl: API_PUBLIC_URL when set; else the direct request\'s scheme and Host (a client\'s X-Forwarded-Host never counts)', async () => {
  const appOf = async (publicUrl: string | undefined) => {
    const app = Fastify({ trustProxy: false });
    app.decorate('services', { config: { api: { publicUrl } } } as never);
    app.get('/', async (request) => ({ url: hostUrl(request) }));
    await app.ready();
    return app;
  };
  const direct = await appOf(undefined);
  const configured = await appOf('https://magnum.example.com');
  try {
    assert.equal((await direct.inject({ url: '/', headers: { host: 'magnum.example:9511' } })).json().url, 'http://magnum.example:9511');
    assert.equal((await direct.inject({ url: '/', headers: { host: 'internal', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.org' } })).json().url, 'http://internal');
    assert.equal((await configured.inject({ url: '/', headers: { host: 'internal', 'x-forwarded-host': 'evil.example' } })).json().url, 'https://magnum.example.com');
  } finally {
    await direct.close();
    await configured.close();
  }
});

test('isoSeconds: Magnum’s format, seconds and +00:00; null stays null', () => {
  assert.equal(isoSeconds(new Date('2016-08-29T06:51:31.987Z')), '2016-08-29T06:51:31+00:00');
  assert.equal(isoSeconds(null), null);
});

test('selfLinks: the versioned self link and the unversioned bookmark', () => {
  assert.deepEqual(selfLinks('http://h', 'clusters/u'), [
    { href: 'http://h/v1/clusters/u', rel: 'self' },
    { href: 'http://h/clusters/u', rel: 'bookmark' },
  ]);
});
