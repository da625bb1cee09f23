// Magnum's error envelope for what no route answers (src/api/plugins/envelope.ts): an unknown route is the
// framework's 404, an unsupported method on a known path its 405, both in the envelope.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { testApp, type TestApp } from '../../support/app.js';
import { assertEnvelope } from '../../support/api-asserts.js';

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

describe('unknown routes and methods (§4, §9)', () => {
  test('unknown route → 404 framework envelope', async () => {
    for (const url of ['/v1/no-such-collection', '/v1/clustertemplates/a/b/c']) {
      const res = await req({ method: 'GET', url });
      assertEnvelope(res, 404, '', 'Not Found');
    }
  });

  test('unsupported method on a known path → 405 framework envelope', async () => {
    for (const opts of [
      { method: 'PUT', url: '/v1/clustertemplates' },
      { method: 'PUT', url: '/v1/clustertemplates/' },
      { method: 'POST', url: '/v1/clustertemplates/some-template' },
      { method: 'DELETE', url: '/v1/clustertemplates' },
    ] as const) {
      const res = await req(opts);
      assertEnvelope(res, 405, '', 'Method Not Allowed');
    }
  });
});
