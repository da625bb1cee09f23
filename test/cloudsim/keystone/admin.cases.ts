// Keystone emulator: catalog contents and the identity admin API (projects, users, roles, assignments, ...).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { staleEntries } from '../../../cloudsim/common/indexed-map.js';
import { api, assertKeystoneError, login, PUBLIC_URL, projectScope, sim, tokenFor } from './helpers.js';

const EXTRA = [
  { type: 'compute', name: 'nova', url: 'http://nova.test:8774/v2.1' },
  { type: 'block-storage', name: 'cinderv3', url: 'http://cinder.test:8776/v3/%(project_id)s' },
  { type: 'container-infra', name: 'magnum', url: 'http://magnum.test:9511/v1', interfaces: ['public' as const] },
];

test('catalog: identity on three interfaces plus the extra services, in one region, substituted per project', async () => {
  const ks = await sim({ region: 'RegionTwo', catalog: EXTRA });
  const demo = await login(ks, 'demo', projectScope('demo'));
  const catalog = demo.body.token.catalog as { type: string; name: string; id: string; endpoints: Record<string, string>[] }[];
  const byType = new Map(catalog.map((s) => [s.type, s]));
  assert.deepEqual([...byType.keys()].sort(), ['block-storage', 'compute', 'container-infra', 'identity']);

  const identity = byType.get('identity')!;
  assert.equal(identity.name, 'keystone');
  assert.deepEqual(identity.endpoints.map((e) => e.interface).sort(), ['admin', 'internal', 'public']);
  for (const e of identity.endpoints) {
    assert.equal(e.url, `${PUBLIC_URL}/v3`);
    assert.equal(e.region_id, 'RegionTwo');
    assert.equal(e.region, 'RegionTwo');
    assert.match(e.id!, /^[0-9a-f]{32}$/);
  }
  assert.deepEqual(byType.get('compute')!.endpoints.map((e) => e.interface), ['public', 'internal']);
  assert.deepEqual(byType.get('container-infra')!.endpoints.map((e) => e.interface), ['public']);
  const demoProject = ks.state.projectId('demo');
  assert.equal(byType.get('block-storage')!.endpoints[0]!.url, `http://cinder.test:8776/v3/${demoProject}`);

  // Endpoints needing a project are dropped from system-scoped tokens.
  const system = await login(ks, 'admin', { system: { all: true } });
  assert.ok(!(system.body.token.catalog as { type: string }[]).some((s) => s.type === 'block-storage'));

  // GET /v3/auth/catalog returns the same list; unscoped tokens get 403.
  const viaApi = await api(ks, demo.token, 'GET', '/v3/auth/catalog');
  assert.equal(viaApi.statusCode, 200);
  assert.deepEqual(viaApi.json().catalog, catalog);
  const unscoped = await login(ks, 'demo', 'unscoped');
  assertKeystoneError(await api(ks, unscoped.token, 'GET', '/v3/auth/catalog'), 403);

  // setPublicUrl rebuilds the identity endpoints (ids kept) and links.
  ks.setPublicUrl('http://127.0.0.1:5555/');
  const after = await login(ks, 'demo', projectScope('demo'));
  const identityAfter = (after.body.token.catalog as typeof catalog).find((s) => s.type === 'identity')!;
  assert.ok(identityAfter.endpoints.every((e) => e.url === 'http://127.0.0.1:5555/v3'));
  assert.deepEqual(identityAfter.endpoints.map((e) => e.id), identity.endpoints.map((e) => e.id));
  const version = await ks.app.inject({ method: 'GET', url: '/v3' });
  assert.equal(version.json().version.links[0].href, 'http://127.0.0.1:5555/v3/');
});

test('services, endpoints and regions lists', async () => {
  const ks = await sim({ catalog: EXTRA });
  const admin = await tokenFor(ks, 'admin');
  const services = (await api(ks, admin, 'GET', '/v3/services')).json();
  assert.deepEqual(services.links, { self: `${PUBLIC_URL}/v3/services`, previous: null, next: null });
  assert.equal(services.services.length, 4);
  const compute = (await api(ks, admin, 'GET', '/v3/services?type=compute')).json().services;
  assert.equal(compute.length, 1);
  const endpoints = (await api(ks, admin, 'GET', `/v3/endpoints?service_id=${compute[0].id}&interface=public`)).json().endpoints;
  assert.equal(endpoints.length, 1);
  assert.equal(endpoints[0].url, 'http://nova.test:8774/v2.1');
  assert.equal(endpoints[0].region_id, 'RegionOne');
  const regions = await api(ks, await tokenFor(ks, 'demo'), 'GET', '/v3/regions');
  assert.deepEqual(regions.json().regions.map((r: { id: string }) => r.id), ['RegionOne']);
  assertKeystoneError(await api(ks, await tokenFor(ks, 'demo'), 'GET', '/v3/services'), 403);
});

test('projects: admin lists/creates (409 on duplicate), members see only their own, 401 without a token', async () => {
  const ks = await sim();
  const admin = await tokenFor(ks, 'admin');
  const demo = await tokenFor(ks, 'demo');
  assertKeystoneError(await api(ks, undefined, 'GET', '/v3/projects'), 401);
  assertKeystoneError(await api(ks, demo, 'GET', '/v3/projects'), 403);

  const all = (await api(ks, admin, 'GET', '/v3/projects')).json();
  assert.deepEqual(all.projects.map((p: { name: string }) => p.name).sort(), ['admin', 'demo', 'other', 'service']);
  for (const p of all.projects) assert.match(p.id, /^[0-9a-f]{32}$/);
  assert.deepEqual(all.links, { self: `${PUBLIC_URL}/v3/projects`, previous: null, next: null });
  const filtered = (await api(ks, admin, 'GET', '/v3/projects?name=demo')).json().projects;
  assert.equal(filtered.length, 1);
  assert.equal(filtered[0].id, ks.state.projectId('demo'));
  assert.equal(filtered[0].domain_id, 'default');

  const created = await api(ks, admin, 'POST', '/v3/projects', { project: { name: 'team-a', description: 'A' } });
  assert.equal(created.statusCode, 201, created.body);
  assert.equal(created.json().project.id, ks.state.projectId('team-a'));
  assertKeystoneError(await api(ks, admin, 'POST', '/v3/projects', { project: { name: 'team-a' } }), 409);
  assertKeystoneError(await api(ks, admin, 'POST', '/v3/projects', { project: {} }), 400);
  assertKeystoneError(await api(ks, demo, 'POST', '/v3/projects', { project: { name: 'mine' } }), 403);

  const demoId = ks.state.projectId('demo');
  assert.equal((await api(ks, demo, 'GET', `/v3/projects/${demoId}`)).statusCode, 200);
  assertKeystoneError(await api(ks, demo, 'GET', `/v3/projects/${ks.state.projectId('other')}`), 403);
  assertKeystoneError(await api(ks, admin, 'GET', '/v3/projects/nope'), 404);

  const mine = (await api(ks, demo, 'GET', '/v3/auth/projects')).json().projects;
  assert.deepEqual(mine.map((p: { name: string }) => p.name), ['demo']);
  const userProjects = await api(ks, demo, 'GET', `/v3/users/${ks.state.userId('demo')}/projects`);
  assert.deepEqual(userProjects.json().projects.map((p: { name: string }) => p.name), ['demo']);
  assertKeystoneError(await api(ks, demo, 'GET', `/v3/users/${ks.state.userId('other')}/projects`), 403);
});

test('users: create, show (self or admin), patch enabled, delete', async () => {
  const ks = await sim();
  const admin = await tokenFor(ks, 'admin');
  const demoProject = ks.state.projectId('demo');
  const created = await api(ks, admin, 'POST', '/v3/users', {
    user: { name: 'alice', password: 'alice-pw', default_project_id: demoProject, email: 'alice@example.test' },
  });
  assert.equal(created.statusCode, 201, created.body);
  const alice = created.json().user;
  assert.equal(alice.default_project_id, demoProject);
  assert.equal(alice.email, 'alice@example.test');
  assert.ok(!('password' in alice));
  assertKeystoneError(await api(ks, admin, 'POST', '/v3/users', { user: { name: 'alice' } }), 409);

  // No role yet: the default project is unusable, so the token comes back unscoped.
  const unscoped = await login(ks, 'alice', undefined, { password: 'alice-pw' });
  assert.ok(!('project' in unscoped.body.token));
  ks.state.assignRole(alice.id, demoProject, 'member');
  const scoped = await login(ks, 'alice', undefined, { password: 'alice-pw' });
  assert.equal(scoped.body.token.project.id, demoProject);

  assert.equal((await api(ks, scoped.token, 'GET', `/v3/users/${alice.id}`)).statusCode, 200);
  assertKeystoneError(await api(ks, scoped.token, 'GET', `/v3/users/${ks.state.userId('admin')}`), 403);
  assertKeystoneError(await api(ks, scoped.token, 'GET', '/v3/users'), 403);
  const list = (await api(ks, admin, 'GET', '/v3/users?name=alice')).json().users;
  assert.deepEqual(list.map((u: { id: string }) => u.id), [alice.id]);

  // A renamed user logs in by the new name only.
  assert.equal((await api(ks, admin, 'PATCH', `/v3/users/${alice.id}`, { user: { name: 'alicia' } })).statusCode, 200);
  assert.equal((await login(ks, 'alicia', projectScope('demo'), { password: 'alice-pw' })).body.token.user.id, alice.id);
  assert.equal(ks.state.findUserByName('alice', 'default'), undefined);
  assert.deepEqual(staleEntries(ks.state), []);

  const disabled = await api(ks, admin, 'PATCH', `/v3/users/${alice.id}`, { user: { enabled: false } });
  assert.equal(disabled.json().user.enabled, false);
  assertKeystoneError(await api(ks, scoped.token, 'GET', `/v3/users/${alice.id}`), 401);
  assertKeystoneError(await api(ks, admin, 'PATCH', `/v3/users/${alice.id}`, { user: { enabled: 'maybe' } }), 400);

  assert.equal((await api(ks, admin, 'DELETE', `/v3/users/${alice.id}`)).statusCode, 204);
  assertKeystoneError(await api(ks, admin, 'GET', `/v3/users/${alice.id}`), 404);
  assertKeystoneError(await api(ks, admin, 'DELETE', `/v3/users/${alice.id}`), 404);
  assert.equal(ks.state.assignmentsOf(alice.id).length, 0);
});

test('roles, grants and role_assignments (filters, include_names, effective)', async () => {
  const ks = await sim();
  const { state } = ks;
  const admin = await tokenFor(ks, 'admin');
  const roles = (await api(ks, admin, 'GET', '/v3/roles')).json().roles;
  assert.deepEqual(roles.map((r: { name: string }) => r.name).sort(), ['admin', 'load-balancer_member', 'load-balancer_observer', 'member', 'reader', 'service']);
  assert.equal((await api(ks, admin, 'GET', '/v3/roles?name=member')).json().roles[0].id, state.roleId('member'));

  const other = state.userId('other');
  const demoProject = state.projectId('demo');
  const member = state.roleId('member');
  const grant = `/v3/projects/${demoProject}/users/${other}/roles/${member}`;
  assert.equal((await api(ks, admin, 'PUT', grant)).statusCode, 204);
  assert.equal((await api(ks, admin, 'GET', grant)).statusCode, 204);
  const otherOnDemo = await login(ks, 'other', projectScope('demo'));
  assert.equal(otherOnDemo.body.token.project.id, demoProject);
  assertKeystoneError(await api(ks, admin, 'PUT', `/v3/projects/${demoProject}/users/${other}/roles/nope`), 404);
  assertKeystoneError(await api(ks, otherOnDemo.token, 'PUT', grant), 403);

  const filtered = await api(ks, admin, 'GET', `/v3/role_assignments?user.id=${other}&scope.project.id=${demoProject}`);
  assert.deepEqual(filtered.json().role_assignments, [
    {
      role: { id: member },
      user: { id: other },
      scope: { project: { id: demoProject } },
      links: { assignment: `${PUBLIC_URL}/v3/projects/${demoProject}/users/${other}/roles/${member}` },
    },
  ]);
  const named = await api(ks, admin, 'GET', `/v3/role_assignments?user.id=${other}&scope.project.id=${demoProject}&include_names`);
  const row = named.json().role_assignments[0];
  assert.equal(row.role.name, 'member');
  assert.deepEqual(row.user.domain, { id: 'default', name: 'Default' });
  assert.equal(row.scope.project.name, 'demo');
  const effective = await api(ks, admin, 'GET', `/v3/role_assignments?user.id=${other}&scope.project.id=${demoProject}&effective&include_names`);
  assert.deepEqual(effective.json().role_assignments.map((r: { role: { name: string } }) => r.role.name).sort(), ['member', 'reader']);
  const adminRows = (await api(ks, admin, 'GET', `/v3/role_assignments?user.id=${state.userId('admin')}`)).json().role_assignments;
  assert.ok(adminRows.some((r: { scope: Record<string, unknown> }) => 'system' in r.scope));

  assert.equal((await api(ks, admin, 'DELETE', grant)).statusCode, 204);
  assertKeystoneError(await api(ks, admin, 'DELETE', grant), 404);
  assertKeystoneError(await api(ks, admin, 'GET', `/v3/auth/tokens`), 404); // no subject
  const domains = (await api(ks, admin, 'GET', '/v3/domains')).json().domains;
  assert.deepEqual(domains.map((d: { id: string; name: string }) => [d.id, d.name]), [['default', 'Default']]);
  assertKeystoneError(await api(ks, otherOnDemo.token, 'GET', '/v3/role_assignments'), 401); // role gone → token invalid
});
