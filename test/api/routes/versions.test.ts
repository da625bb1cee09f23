// Every link the version documents (GET / and GET /v1) advertise answers: followed with a token (the
// templated nodegroups link with a real cluster), at the default microversion and at the latest, none is a
// 404 or a 5xx, and each answers 2xx at one of the two (bays and baymodels end at 1.10, node groups start
// at 1.9) but the certificates collection, which takes only POST (a GET is a 405, as in Magnum; the POST
// is checked to answer). The documents link nothing outside this service.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { testApp, type TestApp } from '../../support/app.js';
import { insertCluster } from '../../support/cluster-fixture.js';

const HOST = 'magnum.test:9511';
let t: TestApp;
let token: string;
let cluster: string;

before(async () => {
  t = await testApp();
  token = await t.token('admin');
  const s = t.keystone.state;
  cluster = (await insertCluster(t.app, { name: 'linked', user: s.userId('admin'), project: s.projectId('admin'), nodegroups: true })).cluster.uuid;
});
after(async () => {
  await t.close();
});

/** Every `href` anywhere in a document. */
function hrefs(doc: unknown): string[] {
  if (Array.isArray(doc)) return doc.flatMap(hrefs);
  if (doc && typeof doc === 'object') return Object.entries(doc).flatMap(([k, v]) => (k === 'href' && typeof v === 'string' ? [v] : hrefs(v)));
  return [];
}

test('every link of / and /v1 answers (no 404, no 5xx; 2xx at the default or the latest microversion)', async () => {
  const links = new Set<string>();
  for (const url of ['/', '/v1']) {
    const doc = await t.app.inject({ method: 'GET', url, headers: { host: HOST } });
    assert.equal(doc.statusCode, 200);
    for (const h of hrefs(doc.json())) links.add(h);
  }
  assert.ok(links.size >= 19, [...links].join('\n'));
  const outside = [...links].filter((h) => !h.startsWith(`http://${HOST}/`));
  assert.deepEqual(outside, [], 'the documents link only this service');
  const bad: string[] = [];
  for (const href of links) {
    const path = new URL(href.replace('{cluster_id}', cluster)).pathname;
    const statuses: number[] = [];
    for (const version of [undefined, 'container-infra latest']) {
      const res = await t.app.inject({ method: 'GET', url: path, headers: { host: HOST, 'x-auth-token': token, ...(version ? { 'openstack-api-version': version } : {}) } });
      statuses.push(res.statusCode);
    }
    if (/\/certificates\/$/.test(path)) {
      const post = await t.app.inject({ method: 'POST', url: path, payload: {}, headers: { host: HOST, 'x-auth-token': token, 'openstack-api-version': 'container-infra latest' } });
      statuses.push(post.statusCode);
      if (statuses.join() !== '405,405,400') bad.push(`${href}: GET ${statuses[0]}, ${statuses[1]}; POST ${statuses[2]}`);
      continue;
    }
    if (statuses.some((s) => s === 404 || s >= 500) || !statuses.some((s) => s >= 200 && s < 300)) bad.push(`${href}: ${statuses.join(', ')}`);
  }
  assert.deepEqual(bad, []);
});

test('the documents promise no federations, which this service (like Magnum\'s conductor) does not have', async () => {
  const v1 = (await t.app.inject({ method: 'GET', url: '/v1' })).json();
  assert.equal(v1.federations, undefined);
  const res = await t.app.inject({ method: 'GET', url: '/v1/federations', headers: { 'x-auth-token': token } });
  assert.equal(res.statusCode, 404);
});
