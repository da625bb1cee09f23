// The caller as Keystone describes the validated token (src/keystone/context.ts): its scope, roles
// (lower-cased), whether it is a cloud admin, its catalog and application credential with access rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contextFromToken } from '../../src/keystone/context.js';

const base = { user: { id: 'u', name: 'demo', domain: { id: 'default' } }, expires_at: '2026-01-01T00:00:00.000000Z' };

test('a project-scoped token: the project, its roles lower-cased, an admin role makes a cloud admin', () => {
  const ctx = contextFromToken({ token: { ...base, project: { id: 'p', name: 'demo', domain: { id: 'default' } }, roles: [{ name: 'Member' }, { name: 'ADMIN' }], catalog: [{ type: 'compute', endpoints: [] }] } });
  assert.deepEqual([ctx.scope, ctx.projectId, ctx.projectName, ctx.projectDomainId, ctx.domainId], ['project', 'p', 'demo', 'default', null]);
  assert.deepEqual(ctx.roles, ['member', 'admin']);
  assert.equal(ctx.isAdmin, true);
  assert.equal(ctx.expiresAt, Date.parse('2026-01-01T00:00:00Z'));
  assert.deepEqual(ctx.catalog, [{ type: 'compute', endpoints: [] }]);
  assert.deepEqual([ctx.userId, ctx.userName, ctx.userDomainId, ctx.applicationCredential], ['u', 'demo', 'default', null]);
});

test('scopes: a domain-scoped admin is no cloud admin, a system-scoped one is, an unscoped token has no project', () => {
  const admin = [{ name: 'admin' }];
  const domain = contextFromToken({ token: { ...base, domain: { id: 'd' }, roles: admin } });
  assert.deepEqual([domain.scope, domain.domainId, domain.projectId, domain.isAdmin], ['domain', 'd', null, false]);
  const system = contextFromToken({ token: { ...base, system: { all: true }, roles: admin } });
  assert.deepEqual([system.scope, system.isAdmin], ['system', true]);
  const unscoped = contextFromToken({ token: { ...base } });
  assert.deepEqual([unscoped.scope, unscoped.roles, unscoped.isAdmin, unscoped.catalog], ['unscoped', [], false, []]);
  assert.equal(contextFromToken({ token: { ...base, system: { all: false }, roles: admin } }).scope, 'unscoped');
});

test('an application credential: restricted unless it says otherwise; access rules only when Keystone renders them', () => {
  const plain = contextFromToken({ token: { ...base, application_credential: { id: 'ac' } } });
  assert.deepEqual(plain.applicationCredential, { id: 'ac', restricted: true, accessRules: null });
  const open = contextFromToken({ token: { ...base, application_credential: { id: 'ac', restricted: false } } });
  assert.equal(open.applicationCredential?.restricted, false);
  const ruled = contextFromToken({ token: { ...base, application_credential: { id: 'ac', access_rules: [{ service: 'container-infra', method: 'GET', path: '/v1/clusters', id: 'x' }] } } });
  assert.deepEqual(ruled.applicationCredential?.accessRules, [{ service: 'container-infra', method: 'GET', path: '/v1/clusters' }]);
});
