// The inputs of one node's user-data: its roles, and Nova's limit on user-data, which the simulator's Nova (built
// from Nova's API schema) enforces the same way.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCreateBody } from '../../../cloudsim/nova/create-body.js';
import { NODE_ROLES, NOVA_USER_DATA_LIMIT } from '../../../src/bootstrap/user-data/inputs.js';
import { base64Size, renderUserData } from '../../../src/bootstrap/user-data/userdata.js';
import { parseClusterSpec } from '../../../src/cluster-spec/parse.js';
import { input, pki, TOKEN } from '../../support/spec-fixtures.js';

test('the roles: the first control plane, the joining ones, the workers; each renders', () => {
  assert.deepEqual(NODE_ROLES, ['init', 'control-plane', 'worker']);
  const { spec } = parseClusterSpec(input());
  for (const role of NODE_ROLES) {
    const i = role === 'worker' ? { role, caCert: pki.ca.cert } : { role, pki };
    assert.ok(renderUserData(spec, { ...i, nodeName: `n-${role}`, endpoint: { address: '10.0.0.10' }, bootstrapToken: TOKEN }).length > 0, role);
  }
});

test('Nova\'s limit: the largest base64 user-data the simulated Nova takes, and one character more it refuses', () => {
  const body = (userData: string) => ({ server: { name: 'n', flavorRef: '1', networks: 'none', user_data: userData } });
  const v = { major: 2, minor: 90 };
  const largest = 'A'.repeat(Math.floor(NOVA_USER_DATA_LIMIT / 4) * 4);
  assert.equal(base64Size('x'.repeat((largest.length / 4) * 3)), largest.length);
  assert.doesNotThrow(() => parseCreateBody(body(largest), v));
  assert.throws(() => parseCreateBody(body('A'.repeat(NOVA_USER_DATA_LIMIT + 1)), v), /user_data/);
});
