// The Barbican client (src/openstack/barbican.ts) against the simulator: a cluster's KMS key stored as a
// secret (its id from the secret_ref), found by name through every page, deleted (again: false); other
// projects do not see it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { BarbicanClient, secretId, type SecretStore } from '../../src/openstack/barbican.js';
import type { CallRecord } from '../../src/openstack/http.js';
import { startCloud, type Cloud } from './cloud.js';

let cloud: Cloud;
before(async () => {
  cloud = await startCloud();
});
after(() => cloud.close());

const key = (name: string): SecretStore => ({
  name,
  secret_type: 'symmetric',
  algorithm: 'aes',
  bit_length: 256,
  mode: 'cbc',
  payload: randomBytes(32).toString('base64'),
  payload_content_type: 'application/octet-stream',
  payload_content_encoding: 'base64',
});

test('secretId: the last segment of a reference, trailing slash or not', () => {
  assert.equal(secretId('http://kms:9311/v1/secrets/abc-1'), 'abc-1');
  assert.equal(secretId('http://kms:9311/v1/secrets/abc-1/'), 'abc-1');
});

test('store, list by name across pages, delete; another project sees none of it', async () => {
  const calls: CallRecord[] = [];
  const kms = new BarbicanClient(await cloud.session('demo', 'key-manager', { calls }));
  const id = await kms.storeSecret(key('kms-cluster-a'));
  assert.match(id, /^[0-9a-f-]{36}$/);
  const many = [];
  for (let i = 0; i < 3; i++) many.push(await kms.storeSecret(key('kms-many')));
  calls.length = 0;
  const found = await kms.listSecrets('kms-many');
  assert.deepEqual(found.map((s) => secretId(s.secret_ref)).sort(), [...many].sort());
  assert.ok(found.every((s) => s.name === 'kms-many' && s.secret_type === 'symmetric' && s.bit_length === 256));
  assert.ok(calls.every((c) => c.operation === 'secrets.list'));
  assert.deepEqual((await kms.listSecrets('kms-cluster-a')).map((s) => secretId(s.secret_ref)), [id]);
  const other = new BarbicanClient(await cloud.session('other', 'key-manager'));
  assert.deepEqual(await other.listSecrets('kms-cluster-a'), []);
  assert.equal(await kms.deleteSecret(id), true);
  assert.equal(await kms.deleteSecret(id), false, 'already gone');
  assert.deepEqual(await kms.listSecrets('kms-cluster-a'), []);
});
