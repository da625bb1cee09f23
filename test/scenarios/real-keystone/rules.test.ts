// Application credentials against Debian's real Keystone (issue 15 holes 2 and 9): access rules are
// handed to the API only because it says it enforces them, and it does (403 for what no rule allows);
// and the cluster's own credential is accepted by Keystone with only member (and reader) of an
// admin's roles.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { createClusterCredential } from '../../../src/clusters/credential.js';
import { ClusterEntity } from '../../../src/db/entities/cluster.js';
import { apiOn, issueToken, keystoneCall, startRealKeystone, type RealKeystone } from '../../support/real-keystone.js';
import { testApp, type TestApp } from '../../support/app.js';

interface Rule {
  service: string;
  method: string;
  path: string;
}

describe('application credentials with the real Keystone', () => {
  let ks: RealKeystone;
  let t: TestApp;
  let demo: { token: string; userId: string };
  let template: string;

  before(async () => {
    ks = await startRealKeystone({ provider: 'fernet' });
    t = await testApp({ config: apiOn(ks) });
    // keystonemiddleware checks access rules only for a service in the token's catalog: register the API.
    const admin = (await issueToken(ks, 'admin')).token;
    const service = await keystoneCall(ks.authUrl, 'POST', '/services', { token: admin, body: { service: { type: 'container-infra', name: 'magnum' } } });
    assert.equal(service.status, 201, JSON.stringify(service.body));
    for (const iface of ['public', 'internal']) {
      const ep = await keystoneCall(ks.authUrl, 'POST', '/endpoints', {
        token: admin,
        body: { endpoint: { service_id: service.body.service.id, interface: iface, region_id: 'RegionOne', url: 'http://127.0.0.1:9511/v1' } },
      });
      assert.equal(ep.status, 201, JSON.stringify(ep.body));
    }
    const issued = await issueToken(ks, 'demo');
    demo = { token: issued.token, userId: issued.body.token.user.id };
    const made = await call(demo.token, 'POST', '/v1/clustertemplates', { name: 'k8s', coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', master_lb_enabled: true });
    assert.equal(made.statusCode, 201, made.body);
    template = made.json().uuid;
  });

  after(async () => {
    await t?.close();
    await ks?.stop();
  });

  function call(token: string, method: 'GET' | 'POST' | 'DELETE' | 'PATCH', url: string, payload?: Record<string, unknown>): Promise<LightMyRequestResponse> {
    return t.app.inject({ method, url, headers: { 'x-auth-token': token, 'openstack-api-version': 'container-infra latest' }, ...(payload ? { payload } : {}) });
  }

  let n = 0;
  /** A token of a new application credential of demo (restricted, as Keystone makes them by default). */
  async function credentialToken(rules?: Rule[]): Promise<string> {
    const made = await keystoneCall(ks.authUrl, 'POST', `/users/${demo.userId}/application_credentials`, {
      token: demo.token,
      body: { application_credential: { name: `rules-${n++}`, ...(rules ? { access_rules: rules } : {}) } },
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const { id, secret } = made.body.application_credential;
    const auth = await keystoneCall(ks.authUrl, 'POST', '/auth/tokens', {
      body: { auth: { identity: { methods: ['application_credential'], application_credential: { id, secret } } } },
    });
    assert.equal(auth.status, 201, JSON.stringify(auth.body));
    return auth.headers.get('x-subject-token')!;
  }

  function assertDenied(res: LightMyRequestResponse, what: string): void {
    assert.equal(res.statusCode, 403, `${what}: ${res.body}`);
    assert.equal(res.json().errors[0].status, 403);
    assert.match(res.json().errors[0].detail, /access rules/);
  }

  it('Keystone hands out the rules only to a service that says it enforces them', async () => {
    const token = await credentialToken([{ service: 'compute', method: 'GET', path: '/v2.1/servers' }]);
    const service = (await issueToken(ks, 'magnum')).token;
    const without = await keystoneCall(ks.authUrl, 'GET', '/auth/tokens', { token: service, subject: token });
    assert.equal(without.status, 404, 'no header: Keystone says the token does not exist');
    const res = await fetch(`${ks.authUrl}/auth/tokens`, {
      headers: { 'x-auth-token': service, 'x-subject-token': token, 'openstack-identity-access-rules': '1.0', accept: 'application/json' },
    });
    assert.equal(res.status, 200);
    const rules = ((await res.json()) as { token: { application_credential: { access_rules: Rule[] } } }).token.application_credential.access_rules;
    assert.deepEqual(rules.map((r) => [r.service, r.method, r.path]), [['compute', 'GET', '/v2.1/servers']]);
  });

  it('a credential restricted to GET on compute can neither delete clusters nor sign certificates', async () => {
    const cluster = await call(demo.token, 'POST', '/v1/clusters', { cluster_template_id: template, name: 'target' });
    assert.equal(cluster.statusCode, 202, cluster.body);
    const uuid = cluster.json().uuid;
    const token = await credentialToken([{ service: 'compute', method: 'GET', path: '/v2.1/servers' }]);
    assertDenied(await call(token, 'DELETE', `/v1/clusters/${uuid}`), 'delete');
    assertDenied(await call(token, 'POST', '/v1/certificates', { cluster_uuid: uuid, csr: '-----BEGIN CERTIFICATE REQUEST-----' }), 'sign');
    assertDenied(await call(token, 'GET', '/v1/clusters'), 'list');
    const row = await t.app.services.db.getRepository(ClusterEntity).findOneByOrFail({ uuid });
    assert.equal(row.status, 'CREATE_IN_PROGRESS', 'the cluster is untouched');
  });

  it('one allowing GET /v1/clusters can list but not create', async () => {
    const token = await credentialToken([{ service: 'container-infra', method: 'GET', path: '/v1/clusters' }]);
    const listed = await call(token, 'GET', '/v1/clusters');
    assert.equal(listed.statusCode, 200, listed.body);
    assert.ok(listed.json().clusters.some((c: { name: string }) => c.name === 'target'));
    assertDenied(await call(token, 'POST', '/v1/clusters', { cluster_template_id: template, name: 'refused' }), 'create');
    assertDenied(await call(token, 'GET', `/v1/clustertemplates/${template}`), 'another resource');
  });

  it('an unrestricted one (no access rules) works', async () => {
    const token = await credentialToken();
    const listed = await call(token, 'GET', '/v1/clusters');
    assert.equal(listed.statusCode, 200, listed.body);
    assert.equal((await call(token, 'GET', `/v1/clustertemplates/${template}`)).statusCode, 200);
  });

  it("the cluster's credential: Keystone accepts member and reader of an admin's roles, and tokens of it carry only those", async () => {
    const admin = await issueToken(ks, 'admin');
    assert.deepEqual(admin.body.token.roles.map((r: { name: string }) => r.name).sort(), ['admin', 'member', 'reader']);
    const ctx = await t.app.services.validator.validate(admin.token);
    const cred = await createClusterCredential(t.app.services.clouds, { ctx, token: admin.token }, `cluster-of-admin-${Date.now()}`);
    const shown = await keystoneCall(ks.authUrl, 'GET', `/users/${ctx.userId}/application_credentials/${cred.id}`, { token: admin.token });
    assert.equal(shown.status, 200, JSON.stringify(shown.body));
    assert.deepEqual(shown.body.application_credential.roles.map((r: { name: string }) => r.name).sort(), ['member', 'reader']);
    assert.equal(shown.body.application_credential.unrestricted, false);
    const auth = await keystoneCall(ks.authUrl, 'POST', '/auth/tokens?nocatalog', {
      body: { auth: { identity: { methods: ['application_credential'], application_credential: { id: cred.id, secret: cred.secret } } } },
    });
    assert.equal(auth.status, 201, JSON.stringify(auth.body));
    assert.deepEqual(auth.body.token.roles.map((r: { name: string }) => r.name).sort(), ['member', 'reader']);
  });
});
