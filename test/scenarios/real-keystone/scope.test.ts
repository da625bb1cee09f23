// Token scope against Debian's real Keystone (issue 15, hole 5): a system-scoped and a domain-scoped
// token of the admin (real Keystone issues both) are no project-scoped admin. Neither may create a
// template or read clusters (the rules of scope project refuse them: no row of project '' is ever
// written); the system-scoped admin keeps Magnum's unscoped admin rules (quotas, mservices); the
// domain-scoped one keeps nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { ClusterTemplateEntity } from '../../../src/db/entities/cluster-template.js';
import { QuotaEntity } from '../../../src/db/entities/quota.js';
import { apiOn, issueToken, keystoneCall, passwordLogin, startRealKeystone, type RealKeystone } from '../../support/real-keystone.js';
import { testApp, type TestApp } from '../../support/app.js';

describe('token scope with the real Keystone', () => {
  let ks: RealKeystone;
  let t: TestApp;
  let systemToken: string;
  let domainToken: string;
  let projectToken: string;

  const scoped = (scope: object): Promise<{ token: string; body: { token: Record<string, unknown> } }> => passwordLogin(ks, ks.users.admin, scope);

  before(async () => {
    ks = await startRealKeystone({ provider: 'fernet' });
    t = await testApp({ config: apiOn(ks) });
    const admin = await issueToken(ks, 'admin');
    projectToken = admin.token;
    // keystone-manage bootstrap gives the admin the admin role on the system; on the domain it is granted here.
    const roles = await keystoneCall(ks.authUrl, 'GET', '/roles?name=admin', { token: projectToken });
    const roleId = roles.body.roles[0].id as string;
    const grant = await keystoneCall(ks.authUrl, 'PUT', `/domains/default/users/${admin.body.token.user.id}/roles/${roleId}`, { token: projectToken });
    assert.equal(grant.status, 204, JSON.stringify(grant.body));
    const system = await scoped({ system: { all: true } });
    assert.deepEqual(system.body.token.system, { all: true });
    systemToken = system.token;
    const domain = await scoped({ domain: { id: 'default' } });
    assert.equal((domain.body.token.domain as { id: string }).id, 'default');
    assert.ok((domain.body.token.roles as { name: string }[]).some((r) => r.name === 'admin'), 'the domain-scoped token carries the admin role');
    domainToken = domain.token;
  });

  after(async () => {
    await t?.close();
    await ks?.stop();
  });

  const call = (token: string, method: 'GET' | 'POST', url: string, payload?: object): Promise<LightMyRequestResponse> =>
    t.app.inject({ method, url, headers: { 'x-auth-token': token, 'openstack-api-version': 'container-infra latest' }, ...(payload ? { payload } : {}) });
  const template = { name: 'scoped', coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public' };
  const rows = () => Promise.all([ClusterTemplateEntity, QuotaEntity].map((e) => t.app.services.db.getRepository(e).count()));

  it('a system-scoped admin: no template, no cluster list (403, nothing written); quotas and mservices as Magnum’s unscoped rules allow', async () => {
    const before = await rows();
    const create = await call(systemToken, 'POST', '/v1/clustertemplates', template);
    assert.equal(create.statusCode, 403, create.body);
    assert.equal(create.json().errors[0].detail, "Policy doesn't allow clustertemplate:create to be performed.");
    assert.equal((await call(systemToken, 'GET', '/v1/clusters')).statusCode, 403);
    assert.equal((await call(systemToken, 'GET', '/v1/clustertemplates')).statusCode, 403);
    assert.deepEqual(await rows(), before);
    assert.equal((await call(systemToken, 'GET', '/v1/quotas?all_tenants=true')).statusCode, 200);
    assert.equal((await call(systemToken, 'GET', '/v1/mservices')).statusCode, 200);
    const quota = await call(systemToken, 'POST', '/v1/quotas', { project_id: ks.projectIds.demo, resource: 'Cluster', hard_limit: 4 });
    assert.equal(quota.statusCode, 201, quota.body);
  });

  it('a domain-scoped admin is refused everything, and writes nothing', async () => {
    const before = await rows();
    for (const [method, url, payload] of [
      ['POST', '/v1/clustertemplates', template],
      ['POST', '/v1/quotas', { project_id: ks.projectIds.other, resource: 'Cluster', hard_limit: 4 }],
      ['GET', '/v1/clusters', undefined],
      ['GET', '/v1/quotas', undefined],
      ['GET', '/v1/mservices', undefined],
      ['GET', '/v1/stats', undefined],
    ] as const) {
      const r = await call(domainToken, method, url, payload);
      assert.equal(r.statusCode, 403, `${method} ${url}: ${r.body}`);
    }
    assert.deepEqual(await rows(), before);
  });

  it('the same admin scoped to its project creates in that project', async () => {
    const r = await call(projectToken, 'POST', '/v1/clustertemplates', template);
    assert.equal(r.statusCode, 201, r.body);
    assert.equal(r.json().project_id, ks.projectIds.admin);
  });
});
