// Application-credential access rules (issue 15 hole 2): the path templates as keystonemiddleware
// matches them, and the API refusing (403, Magnum's envelope) what no rule of the caller's
// credential allows, with the Keystone emulator. test/scenarios/real-keystone/rules.test.ts does
// the same against the real Keystone.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { pathMatches } from '../../src/keystone/access-rules.js';
import { testApp, type TestApp } from '../support/app.js';

test('path templates: * and {name} are one segment, ** anything, the rest literal, the whole path', () => {
  const cases: [string, string, boolean][] = [
    ['/v1/clusters', '/v1/clusters', true],
    ['/v1/clusters/abc', '/v1/clusters', false],
    ['/v1/clusters', '/v1/clusters/*', false],
    ['/v1/clusters/abc', '/v1/clusters/*', true],
    ['/v1/clusters/abc/actions/resize', '/v1/clusters/*', false],
    ['/v1/clusters/abc/actions/resize', '/v1/clusters/*/actions/*', true],
    ['/v1/clusters/abc/actions/resize', '/v1/clusters/{cluster_id}/actions/resize', true],
    ['/v1/clusters//actions/resize', '/v1/clusters/*/actions/resize', false],
    ['/v1/clusters/abc/actions/resize', '/v1/**', true],
    ['/v1/', '/v1/**', true],
    ['/v2/clusters', '/v1/**', false],
    ['/v1/clusters', '/**', true],
    ['/v1xclusters', '/v1.clusters', false],
    ['/v1/clusters', '/v1/(clusters|certificates)', false],
    ['/v1/certificates', '/v1/clusters', false],
  ];
  for (const [path, template, want] of cases) assert.equal(pathMatches(path, template), want, `${path} ~ ${template}`);
});

describe('API: tokens of application credentials with access rules', () => {
  let t: TestApp;
  let demoId: string;
  let demo: string;

  before(async () => {
    t = await testApp();
    // keystonemiddleware checks rules only when the token's catalog has the service.
    t.keystone.state.catalog.upsert({ type: 'container-infra', name: 'magnum', url: 'http://127.0.0.1:9511/v1' });
    demoId = t.keystone.state.userId('demo');
    demo = await t.token('demo');
  });
  after(() => t.close());

  let n = 0;
  /** A token of a new application credential of demo with these rules (none: no access_rules field). */
  async function credentialToken(rules?: { service: string; method: string; path: string }[]): Promise<string> {
    const made = await t.keystone.app.inject({
      method: 'POST',
      url: `/v3/users/${demoId}/application_credentials`,
      headers: { 'x-auth-token': demo },
      payload: { application_credential: { name: `c${n++}`, ...(rules ? { access_rules: rules } : {}) } },
    });
    assert.equal(made.statusCode, 201, made.body);
    const { id, secret } = made.json().application_credential;
    const res = await t.keystone.app.inject({
      method: 'POST',
      url: '/v3/auth/tokens',
      payload: { auth: { identity: { methods: ['application_credential'], application_credential: { id, secret } } } },
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.headers['x-subject-token'] as string;
  }

  const call = (token: string, method: 'GET' | 'POST' | 'DELETE' | 'PATCH', url: string, payload?: Record<string, unknown>) =>
    t.app.inject({ method, url, headers: { 'x-auth-token': token, 'openstack-api-version': 'container-infra latest' }, ...(payload ? { payload } : {}) });

  function assertDenied(res: { statusCode: number; body: string; json(): any }, what: string): void {
    assert.equal(res.statusCode, 403, `${what}: ${res.body}`);
    const [e] = res.json().errors;
    assert.equal(e.status, 403);
    assert.equal(e.code, 'client');
    assert.match(e.detail, /access rules of the application credential you authenticated with do not allow/);
  }

  test('a credential restricted to GET on compute can neither read nor delete clusters nor sign certificates', async () => {
    const token = await credentialToken([{ service: 'compute', method: 'GET', path: '/v2.1/servers' }]);
    assertDenied(await call(token, 'GET', '/v1/clusters'), 'list');
    assertDenied(await call(token, 'DELETE', '/v1/clusters/some-cluster'), 'delete');
    assertDenied(await call(token, 'POST', '/v1/certificates', { cluster_uuid: 'some-cluster', csr: 'x' }), 'sign');
    assertDenied(await call(token, 'PATCH', '/v1/credentials/some-cluster'), 'rotate');
  });

  test('GET /v1/clusters allows listing, in every spelling the API serves it, and nothing else', async () => {
    const token = await credentialToken([{ service: 'container-infra', method: 'GET', path: '/v1/clusters' }]);
    for (const url of ['/v1/clusters', '/v1/clusters/', '/clusters', '/v1/clusters?limit=5']) {
      const res = await call(token, 'GET', url);
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
    }
    assertDenied(await call(token, 'POST', '/v1/clusters', { name: 'x', cluster_template_id: 'y' }), 'create');
    assertDenied(await call(token, 'GET', '/v1/clusters/abc'), 'show');
    assertDenied(await call(token, 'GET', '/v1/clustertemplates'), 'another collection');
  });

  test('templates: * is one cluster, ** everything under it; the service must be container-infra', async () => {
    const one = await credentialToken([{ service: 'container-infra', method: 'GET', path: '/v1/clusters/*' }]);
    assert.equal((await call(one, 'GET', '/v1/clusters/no-such-cluster')).statusCode, 404, 'allowed through, then not found');
    assertDenied(await call(one, 'GET', '/v1/clusters'), 'the collection');
    assertDenied(await call(one, 'GET', '/v1/clusters/x/nodegroups'), 'deeper');
    const all = await credentialToken([{ service: 'container-infra', method: 'GET', path: '/v1/**' }]);
    assert.equal((await call(all, 'GET', '/v1/clustertemplates')).statusCode, 200);
    assert.equal((await call(all, 'GET', '/v1/clusters/x/nodegroups')).statusCode, 404);
    assertDenied(await call(all, 'DELETE', '/v1/clusters/x'), 'another method');
    const elsewhere = await credentialToken([{ service: 'compute', method: 'GET', path: '/v1/**' }]);
    assertDenied(await call(elsewhere, 'GET', '/v1/clustertemplates'), 'same path on another service');
  });

  test('a credential without access rules works as before', async () => {
    const token = await credentialToken();
    assert.equal((await call(token, 'GET', '/v1/clusters')).statusCode, 200);
    assert.equal((await call(token, 'GET', '/v1/clustertemplates')).statusCode, 200);
  });

  test('a token whose catalog lacks container-infra cannot be checked: refused', async () => {
    const token = await credentialToken([{ service: 'container-infra', method: 'GET', path: '/v1/clusters' }]);
    t.keystone.state.catalog.remove('container-infra');
    try {
      // Not the cached validation of an earlier token: this one is new.
      assertDenied(await call(token, 'GET', '/v1/clusters'), 'no catalog entry');
    } finally {
      t.keystone.state.catalog.upsert({ type: 'container-infra', name: 'magnum', url: 'http://127.0.0.1:9511/v1' });
    }
  });
});
