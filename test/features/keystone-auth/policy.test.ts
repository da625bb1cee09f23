// k8s-keystone-auth's authorization policies, scoped to the cluster's project: Magnum's default (a member lists
// pods, services and deployments in default), the wider project-roles, and none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { POLICY_PRESETS, policyFor } from '../../../src/features/keystone-auth/policy.js';
import { parseClusterSpec } from '../../../src/cluster-spec/parse.js';
import { addon, find, rendered } from '../../support/addons.js';
import { labelError } from '../../support/labels.js';
import { input, PROJECT } from '../../support/spec-fixtures.js';

type Policy = { users: { projects: string[]; roles: string[] }; resource_permissions: Record<string, string[]>; nonresource_permissions: Record<string, string[]> }[];
const policyOf = (labels: Record<string, string> = {}): Policy =>
  JSON.parse(find<{ data: { policies: string } }>(addon(rendered({ labels }).addons, 'keystone-auth'), 'ConfigMap', 'k8s-keystone-auth-policy').data.policies);

test("keystone-auth default policy is Magnum's, plus view for readers: a member lists pods, services and deployments in default; a reader gets, lists and watches all but Secrets; nothing writes", () => {
  const policy = policyOf();
  assert.deepEqual(policy[0], { users: { projects: [PROJECT], roles: ['member'] }, resource_permissions: { "default/['pods', 'services', 'deployments']": ['list'] }, nonresource_permissions: {} });
  assert.deepEqual(policy[1]!.users, { projects: [PROJECT], roles: ['reader'] });
  assert.equal(policy.length, 2);
  // No rule of any role writes, or reads a Secret.
  for (const p of policy) {
    for (const [key, verbs] of Object.entries(p.resource_permissions)) {
      assert.ok(key.startsWith('default/') || key === "*/!['secrets']", key);
      assert.ok(verbs.every((v) => ['get', 'list', 'watch'].includes(v)), `${key}: ${verbs}`);
    }
  }
  assert.deepEqual(rendered().spec.features.keystoneAuth, { enabled: true, image: 'registry.k8s.io/provider-os/k8s-keystone-auth:v1.35.0', projectId: PROJECT, policy: 'magnum' });
});

test('keystone_auth_policy widens (project-roles: admin → all, member → all but kube-system and cluster RBAC, reader → read all but Secrets) or empties it; anything else is refused', () => {
  const wide = policyOf({ keystone_auth_policy: 'project-roles' });
  assert.deepEqual(wide.map((p) => p.users), [
    { projects: [PROJECT], roles: ['admin'] },
    { projects: [PROJECT], roles: ['member'] },
    { projects: [PROJECT], roles: ['reader'] },
  ]);
  assert.deepEqual(wide.map((p) => p.resource_permissions), [
    { '*/*': ['*'] },
    { "!kube-system/!['clusterroles', 'clusterrolebindings']": ['*'] },
    { "*/!['secrets']": ['get', 'list', 'watch'] },
  ]);
  for (const p of wide) assert.ok(p.nonresource_permissions['/apis/*'], 'discovery is allowed to every role');
  assert.deepEqual(policyOf({ keystone_auth_policy: 'none' }), []);
  assert.deepEqual(policyOf({ keystone_auth_policy: 'magnum' }), policyOf());
  for (const bad of ['cluster-admin', 'Project-Roles', '']) {
    assert.throws(() => parseClusterSpec(input({ labels: { keystone_auth_policy: bad } })), labelError('keystone_auth_policy', /Expected one of: magnum, project-roles, none/));
  }
});

test('policyFor: every rule names the given project only; admin alone reads /metrics and logs; each preset has a fixed set of roles', () => {
  assert.deepEqual(POLICY_PRESETS, ['magnum', 'project-roles', 'none']);
  for (const preset of POLICY_PRESETS) {
    for (const rule of policyFor(preset, 'p-1')) assert.deepEqual(rule.users.projects, ['p-1'], preset);
  }
  const [admin, member, reader] = policyFor('project-roles', 'p-1');
  assert.deepEqual(admin!.nonresource_permissions['/metrics'], ['get']);
  assert.deepEqual(admin!.nonresource_permissions['/logs/*'], ['get']);
  assert.equal(member!.nonresource_permissions['/metrics'], undefined);
  assert.deepEqual(reader!.nonresource_permissions['/version'], ['get']);
  const magnum = policyFor('magnum', 'p-1');
  assert.deepEqual(magnum.map((r) => r.users.roles), [['member'], ['reader']]);
  assert.deepEqual(magnum[1]!.resource_permissions, { "*/!['secrets']": ['get', 'list', 'watch'] }, 'readers get view (issue 26 item 2): never a Secret, never a write');
  assert.deepEqual(magnum[1]!.nonresource_permissions['/apis/*'], ['get']);
  assert.deepEqual(policyFor('none', 'p-1'), []);
});
