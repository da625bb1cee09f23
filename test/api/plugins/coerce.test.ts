// What a schema cannot say in Magnum's words (src/api/plugins/coerce.ts): an unknown query argument is a 400
// naming it; unknown body attributes are a 400 naming them all.
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

describe('unknown arguments and attributes (§2)', () => {
  test('unknown query argument → 400', async () => {
    for (const url of ['/v1/clustertemplates?name=x', '/v1/clustertemplates/detail?name=x', '/v1/clustertemplates?limit=5&name=x']) {
      const res = await req({ method: 'GET', url });
      assertEnvelope(res, 400, 'client', 'Unknown argument: "name"', 'Unknown argument: "name"');
    }
  });

  test('unknown body attributes → 400 naming them all', async () => {
    const many = await req({
      method: 'POST',
      url: '/v1/clustertemplates',
      payload: { name: 'x', image_id: 'fedora-coreos', coe: 'kubernetes', a: 1, b: 2 },
    });
    assertEnvelope(many, 400, 'client', 'Unknown attributes for argument cluster_template: a, b', 'Unknown attributes for argument cluster_template: a, b');
    const one = await req({ method: 'POST', url: '/v1/clustertemplates', payload: { image_id: 'fedora-coreos', coe: 'kubernetes', a: 1 } });
    assertEnvelope(one, 400, 'client', 'Unknown attribute for argument cluster_template: a');
  });
});
