// The Barbican simulator over HTTP, and the service's Barbican client against it: store (201 secret_ref) with a
// base64 payload, list by name with paging, show, payload, delete (204, then 404), another project's secret 404,
// bad input 400 in Barbican's envelope ({code, title, description}), the audit.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CloudSims } from '../../cloudsim/cloud.js';
import { BUILTIN_USERS } from '../../cloudsim/embedded.js';
import type { KeystoneSim } from '../../cloudsim/keystone/index.js';
import { BarbicanClient } from '../../src/openstack/barbican.js';
import { passwordToken, startKeystone, startSims } from '../support/app.js';
import { call } from '../support/http.js';
import { assertFreshIndexes } from './fresh-indexes.js';

let keystone: KeystoneSim;
let sims: CloudSims;
let demo: string;
let other: string;
let url: string;

before(async () => {
  keystone = await startKeystone();
  sims = await startSims(keystone, 0.01, { clock: { seed: 5 } });
  demo = await passwordToken(keystone, 'demo', BUILTIN_USERS.demo.password, 'demo');
  other = await passwordToken(keystone, 'other', BUILTIN_USERS.other.password, 'other');
  url = sims.urls['key-manager'];
});
after(async () => {
  assertFreshIndexes(sims);
  await sims.close();
  await keystone.app.close();
});

const key = Buffer.alloc(32, 7).toString('base64');
const store = (body: Record<string, unknown>, token = demo) => call('POST', `${url}/v1/secrets`, token, body);
const aesKey = (name: string) => ({ name, secret_type: 'symmetric', algorithm: 'aes', bit_length: 256, mode: 'cbc', payload: key, payload_content_type: 'application/octet-stream', payload_content_encoding: 'base64' });

test('store → 201 secret_ref; show; payload is the bytes; another project gets 404; delete 204 then 404', async () => {
  const r = await store(aesKey('k1'));
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const ref = r.body.secret_ref as string;
  assert.match(ref, /\/v1\/secrets\/[0-9a-f-]{36}$/);
  const shown = await call('GET', ref, demo);
  assert.deepEqual([shown.body.name, shown.body.secret_type, shown.body.algorithm, shown.body.bit_length, shown.body.status], ['k1', 'symmetric', 'aes', 256, 'ACTIVE']);
  const payload = await fetch(`${ref}/payload`, { headers: { 'x-auth-token': demo, accept: 'application/octet-stream' } });
  assert.equal(payload.status, 200);
  assert.deepEqual(Buffer.from(await payload.arrayBuffer()), Buffer.alloc(32, 7));
  const foreign = await call('GET', ref, other);
  assert.equal(foreign.status, 404);
  assert.deepEqual(foreign.body, { code: 404, title: 'Not Found', description: 'Secret not found.' });
  assert.equal((await call('DELETE', ref, other)).status, 404);
  assert.equal((await call('DELETE', ref, demo)).status, 204);
  assert.equal((await call('GET', ref, demo)).status, 404);
  assert.equal((await call('GET', `${url}/v1/secrets`, undefined)).status, 401);
});

test('bad input is a 400 in Barbican\'s envelope', async () => {
  for (const body of [{ ...aesKey('x'), secret_type: 'weird' }, { ...aesKey('x'), payload_content_encoding: undefined }, { ...aesKey('x'), payload: 'not base64!' }, { name: 'x' }]) {
    const r = await store(body);
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.equal(r.body.code, 400);
    assert.equal(r.body.title, 'Bad Request');
  }
});

test('the client: store, list by name across pages, delete, false when gone; the audit lists live secrets', async () => {
  const c = new BarbicanClient({ service: 'key-manager', baseUrl: url, token: demo, timeoutMs: 5000 });
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push(await c.storeSecret({ ...aesKey('paged'), secret_type: 'symmetric', payload_content_type: 'application/octet-stream', payload_content_encoding: 'base64' }));
  await c.storeSecret({ ...aesKey('else'), secret_type: 'symmetric', payload_content_type: 'application/octet-stream', payload_content_encoding: 'base64' });
  const page = await call('GET', `${url}/v1/secrets?name=paged&limit=2`, demo);
  assert.equal(page.body.total, 3);
  assert.match(page.body.next, /offset=2/);
  assert.deepEqual((await c.listSecrets('paged')).map((s) => s.secret_ref.split('/').pop()).sort(), [...ids].sort());
  const audited = sims.audit().projects.flatMap((p) => p.resources).filter((x) => x.service === 'barbican' && x.name === 'paged');
  assert.equal(audited.length, 3);
  assert.equal(await c.deleteSecret(ids[0]!), true);
  assert.equal(await c.deleteSecret(ids[0]!), false);
});
