// Finding what a use case acts on (src/clusters/lookup.ts), with Magnum's errors: visibility and scopes by
// caller, a template named by a request (400 or 404 by version, ambiguous names), the template a cluster was
// made from, clusters and node groups by ident, the group a resize or an upgrade means by default.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { NodeGroupRow } from '../../src/db/entities/nodegroup.js';
import type { Visibility } from '../../src/db/repos/cluster-templates.js';
import { ApiError } from '../../src/domain/errors.js';
import { defaultWorker, findCluster, findGroup, findNodegroup, ownScope, readScope, templateFor, templateOf, templateVisibility } from '../../src/clusters/lookup.js';
import { authContext } from '../support/contexts.js';
import { clusterRow, nodegroupRow, templateRow } from '../support/rows.js';

const member = { ctx: authContext(), token: 't' };
const admin = { ctx: authContext({ roles: ['admin'] }), token: 't' };
const is = (status: number, message: string) => (e: unknown) => e instanceof ApiError && e.status === status && e.message === message;

test('visibility and scopes: admins see every template (not baymodels) and read every project; writes stay in their own', () => {
  assert.deepEqual(templateVisibility('template', admin.ctx), { all: true });
  assert.deepEqual(templateVisibility('baymodel', admin.ctx), { all: false, projectId: 'p-1', hiddenPublic: false });
  assert.deepEqual(templateVisibility('template', member.ctx), { all: false, projectId: 'p-1', hiddenPublic: false });
  assert.deepEqual(readScope(admin.ctx), { all: true });
  assert.deepEqual(readScope(member.ctx), { all: false, projectId: 'p-1' });
  assert.deepEqual(ownScope(admin.ctx), { all: false, projectId: 'p-1' });
});

test('templateFor: mandatory; not found a 404 from 1.10, a 400 before; ambiguous names a 409; found as the caller sees it', async () => {
  const tpl = templateRow({ name: 'k8s' });
  const seen: Visibility[] = [];
  const repo = { find: async (ident: string, vis: Visibility) => (seen.push(vis), ident === 'k8s' ? tpl : ident === 'twin' ? ('ambiguous' as const) : null) };
  for (const missing of [undefined, null, '']) {
    await assert.rejects(templateFor(repo, member, missing, 'cluster_template_id', 404), is(400, "Invalid input for field/attribute cluster_template_id. Value: 'None'. Mandatory field missing."));
  }
  await assert.rejects(templateFor(repo, member, 'nope', 'cluster_template_id', 404), is(404, 'ClusterTemplate nope could not be found.'));
  await assert.rejects(templateFor(repo, member, 'nope', 'baymodel_id', 400), is(400, 'ClusterTemplate nope could not be found.'));
  await assert.rejects(templateFor(repo, member, 'twin', 'x', 404), is(409, 'Multiple cluster templates exist with same name. Please use the cluster template uuid instead.'));
  assert.equal(await templateFor(repo, admin, 'k8s', 'x', 404), tpl);
  assert.deepEqual(seen.at(-1), { all: true });
});

test('templateOf: the cluster’s template from any project (it may have turned private), else a 404', async () => {
  const tpl = templateRow();
  const c = clusterRow(tpl);
  let asked: Visibility | undefined;
  assert.equal(await templateOf({ find: async (_i, vis) => ((asked = vis), tpl) }, c), tpl);
  assert.deepEqual(asked, { all: true });
  await assert.rejects(templateOf({ find: async () => null }, c), is(404, `ClusterTemplate ${tpl.uuid} could not be found.`));
  await assert.rejects(templateOf({ find: async () => 'ambiguous' as const }, c), is(404, `ClusterTemplate ${tpl.uuid} could not be found.`));
});

test('findCluster and findNodegroup: the row, a 404 naming the ident, a 409 for a shared name', async () => {
  const c = clusterRow(templateRow());
  const ng = nodegroupRow(c);
  assert.equal(await findCluster({ find: async () => c }, 'c', { all: true }), c);
  await assert.rejects(findCluster({ find: async () => null }, 'ghost', { all: true }), is(404, 'Cluster ghost could not be found.'));
  await assert.rejects(findCluster({ find: async () => 'ambiguous' }, 'twin', { all: true }), is(409, 'Multiple clusters exist with same name. Please use the cluster uuid instead.'));
  let lockAsked: boolean | undefined;
  assert.equal(await findNodegroup({ find: async (_c, _i, _s, _em, lock) => ((lockAsked = lock), ng) }, c.uuid, 'x', { all: true }, undefined, true), ng);
  assert.equal(lockAsked, true);
  await assert.rejects(findNodegroup({ find: async () => null }, c.uuid, 'ghost', { all: true }), is(404, 'Nodegroup ghost could not be found.'));
  await assert.rejects(findNodegroup({ find: async () => 'ambiguous' }, c.uuid, 'twin', { all: true }), is(409, 'Multiple nodegroups exist with same name. Please use the nodegroup uuid instead.'));
});

test('defaultWorker: the default worker group, else any worker group, never a master', () => {
  const c = clusterRow(templateRow());
  const master = nodegroupRow(c, { role: 'master' });
  const pool = nodegroupRow(c, { name: 'pool', is_default: false });
  const dflt = nodegroupRow(c);
  assert.equal(defaultWorker([master, pool, dflt]), dflt);
  assert.equal(defaultWorker([master, pool]), pool);
  assert.equal(defaultWorker([master]), undefined);
});

test('findGroup: by uuid (any case), name or integer id; a name two groups share is a 409', () => {
  const c = clusterRow(templateRow());
  const a = nodegroupRow(c, { id: 7, name: 'a' });
  const b = nodegroupRow(c, { id: 8, name: 'b' });
  const groups: NodeGroupRow[] = [a, b];
  assert.equal(findGroup(groups, a.uuid.toUpperCase()), a);
  assert.equal(findGroup(groups, 'b'), b);
  assert.equal(findGroup(groups, '7'), a);
  assert.equal(findGroup(groups, 'nope'), undefined);
  assert.throws(() => findGroup([a, { ...b, name: 'a' }], 'a'), (e: unknown) => e instanceof ApiError && e.status === 409);
});

