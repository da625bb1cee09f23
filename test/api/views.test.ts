// Small helpers every resource view uses (src/api/views.ts): the request's own scheme and host (X-Forwarded-*
// honoured through the app's trustProxy), Magnum's timestamps, the self and bookmark links.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { hostUrl, isoSeconds, selfLinks } from '../../src/api/views.js';

test('hostUrl: the Host header, or X-Forwarded-Proto and -Host behind a proxy', async () => {
  const app = Fastify({ trustProxy: true });
  app.get('/', async (request) => ({ url: hostUrl(request) }));
  try {
    assert.equal((await app.inject({ url: '/', headers: { host: 'magnum.example:9511' } })).json().url, 'http://magnum.example:9511');
    assert.equal((await app.inject({ url: '/', headers: { host: 'internal', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.org' } })).json().url, 'https://api.example.org');
  } finally {
    await app.close();
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
