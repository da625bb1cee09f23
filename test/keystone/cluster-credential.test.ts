// The cluster's application credential carries only the roles its consumers need (issue 15 hole 9):
// member (and what goes with it), never the creator's admin; a caller without member gets a clear 403.
// test/scenarios/real-keystone/rules.test.ts checks the same role choice is accepted by the real Keystone.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ClusterEntity } from '../../src/db/entities/cluster.js';
import { clusterCredentialRoles } from '../../src/keystone/cluster-credential.js';
import { testApp, type TestApp, type User } from '../support/app.js';

test('the roles chosen: member, reader and the legacy write roles the token has; admin and others never; nothing without member', () => {
  assert.deepEqual(clusterCredentialRoles(['admin', 'member', 'reader']), ['member', 'reader']);
  assert.deepEqual(clusterCredentialRoles(['reader', 'member']), ['member', 'reader']);
  assert.deepEqual(clusterCredentialRoles(['member', 'load-balancer_member', 'creator', 'heat_stack_owner', 'service']), ['member', 'load-balancer_member', 'creator']);
  assert.deepEqual(clusterCredentialRoles(['Member']), ['member']);
  assert.deepEqual(clusterCredentialRoles(['reader']), []);
  assert.deepEqual(clusterCredentialRoles(['admin']), [], 'admin without member (no implied roles) is not handed on');
});

describe('API: the credential made at create', () => {
  let t: TestApp;
  const templates = new Map<User, string>();

  before(async () => {
    t = await testApp();
    for (const user of ['demo', 'admin'] as const) {
      const res = await t.as(user, {
        method: 'POST',
        url: '/v1/clustertemplates',
        payload: { name: `k8s-${user}`, coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', master_lb_enabled: true },
      });
      assert.equal(res.statusCode, 201, res.body);
      templates.set(user, res.json().uuid);
    }
  });
  after(() => t.close());

  async function credentialRoles(user: User): Promise<string[]> {
    const res = await t.as(user, { method: 'POST', url: '/v1/clusters', payload: { cluster_template_id: templates.get(user), name: `by-${user}` } });
    assert.equal(res.statusCode, 202, res.body);
    const row = await t.app.services.db.getRepository(ClusterEntity).findOneByOrFail({ uuid: res.json().uuid });
    const cred = t.keystone.state.appCreds.get(row.app_cred_id!)!;
    return cred.roleIds.map((id) => t.keystone.state.roles.get(id)!.name).sort();
  }

  test("an admin's cluster gets member and reader, not admin", async () => {
    assert.deepEqual(await credentialRoles('admin'), ['member', 'reader']);
  });

  test("a member's cluster gets member and reader", async () => {
    assert.deepEqual(await credentialRoles('demo'), ['member', 'reader']);
  });

  test('an admin whose role implies nothing gets a 403 naming the role, and no credential or row is made', async () => {
    const ks = t.keystone.state;
    const admin = ks.findRoleByName('admin')!.id;
    const implied = ks.implications.get(admin)!;
    ks.implications.delete(admin);
    try {
      const token = await t.token('admin');
      const creds = ks.appCreds.all().length;
      const rows = await t.app.services.db.getRepository(ClusterEntity).count();
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/clusters',
        headers: { 'x-auth-token': token, 'openstack-api-version': 'container-infra latest' },
        payload: { cluster_template_id: templates.get('admin'), name: 'no-member' },
      });
      assert.equal(res.statusCode, 403, res.body);
      assert.match(res.json().errors[0].detail, /needs the role member/);
      assert.equal(ks.appCreds.all().length, creds);
      assert.equal(await t.app.services.db.getRepository(ClusterEntity).count(), rows);
    } finally {
      ks.implications.set(admin, implied);
    }
  });
});
