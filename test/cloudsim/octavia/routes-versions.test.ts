// Octavia's version documents as Zed's root controller serves them: GET / lists v2.0 … v2.26 (CURRENT),
// each dated, without a token; GET /v2 answers "v2" behind the token.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getJson, withSims } from '../support-sims.js';

const t = withSims();

test('GET / lists v2.0 … v2.26, the last CURRENT, each linking to /v2', async () => {
  const base = t.sims.urls['load-balancer'];
  const r = await getJson(`${base}/`);
  assert.equal(r.status, 200);
  const v = r.body.versions as { id: string; status: string; updated: string; links: unknown[] }[];
  assert.deepEqual(v.map((x) => x.id), Array.from({ length: 27 }, (_, i) => `v2.${i}`));
  assert.deepEqual(v.map((x) => x.status), [...Array(26).fill('SUPPORTED'), 'CURRENT']);
  assert.deepEqual(v[0], { id: 'v2.0', status: 'SUPPORTED', updated: '2016-12-11T00:00:00Z', links: [{ href: `${base}/v2`, rel: 'self' }] });
  assert.equal(v[26]!.updated, '2022-08-29T00:00:00Z');
});

test('GET /v2 and /v2.0: "v2" with a token, 401 without', async () => {
  const base = t.sims.urls['load-balancer'];
  for (const p of ['/v2', '/v2.0']) {
    const r = await getJson(`${base}${p}`, t.demo);
    assert.deepEqual([r.status, r.type, r.body], [200, 'application/json; charset=utf-8', 'v2']);
    assert.equal((await getJson(`${base}${p}`)).status, 401);
  }
});
