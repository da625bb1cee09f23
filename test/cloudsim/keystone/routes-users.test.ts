// Groups in the simulated Keystone, which has none: GET /v3/groups (admins) and a user's groups (the
// user or admins) list none, a group by id is 404; Horizon's identity panels read them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { api, assertKeystoneError, login, projectScope, PUBLIC_URL, sim } from './helpers.js';

test('groups: empty lists with their links, 404 by id, 403 for a member', async () => {
  const ks = await sim();
  const admin = (await login(ks, 'admin', projectScope('admin'))).token;
  const demo = (await login(ks, 'demo', projectScope('demo'))).token;
  const groups = await api(ks, admin, 'GET', '/v3/groups');
  assert.equal(groups.statusCode, 200);
  assert.deepEqual(groups.json().groups, []);
  assert.equal(groups.json().links.self, `${PUBLIC_URL}/v3/groups`);
  assertKeystoneError(await api(ks, demo, 'GET', '/v3/groups'), 403);
  const missing = await api(ks, admin, 'GET', '/v3/groups/nope');
  assertKeystoneError(missing, 404);
  assert.equal(missing.json().error.message, 'Could not find group: nope.');
  const mine = await api(ks, demo, 'GET', `/v3/users/${ks.state.userId('demo')}/groups`);
  assert.deepEqual([mine.statusCode, mine.json().groups], [200, []]);
  assertKeystoneError(await api(ks, demo, 'GET', `/v3/users/${ks.state.userId('other')}/groups`), 403);
  await ks.app.close();
});
