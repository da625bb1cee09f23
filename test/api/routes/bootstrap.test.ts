// POST /bootstrap/v1/material (src/api/routes/bootstrap.ts over src/clusters/node-material.ts): a node's secrets
// once, to the server its token is bound to; every other fetch gets nothing, and the cluster's timeline names
// the used, expired and foreign ones. Real PostgreSQL, the sealed material as the worker writes it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { materialLines, MATERIAL_PATH, parseMaterialLines } from '../../../src/bootstrap/user-data/material.js';
import { insertCluster } from '../../support/cluster-fixture.js';
import { testApp, type TestApp } from '../../support/app.js';

let t: TestApp;
let clusterId: string;
before(async () => {
  // Listening too: a node closing its side of a real connection is seen on the socket.
  t = await testApp({ listen: true });
  const { cluster } = await insertCluster(t.app, { user: 'u1', project: 'p1', name: 'material' });
  clusterId = cluster.uuid;
});
after(() => t.close());

const FILES = [
  { path: '/etc/kubernetes/pki/ca.key', content: '-----BEGIN RSA PRIVATE KEY-----\nxyz\n-----END RSA PRIVATE KEY-----\n', permissions: '0600' },
  { path: '/etc/kubernetes/kubeadm/bootstrap-token', content: 'abcdef.0123456789abcdef\n', permissions: '0600' },
];

/** A token minted for `serverName` as the worker mints one (sealed lines), bound to `serverId` unless null. */
async function mint(serverName: string, serverId: string | null, ttlMs = 60_000): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  const hash = createHash('sha256').update(token).digest('hex');
  const now = new Date();
  await t.services.nodeMaterial.mint({ token_hash: hash, cluster_id: clusterId, server_name: serverName, material: t.services.secretBox.seal(materialLines(FILES), `node-material:${hash}`), expires_at: new Date(now.getTime() + ttlMs), created_at: now });
  if (serverId) await t.services.nodeMaterial.bind(clusterId, serverName, serverId);
  return token;
}

const fetchMaterial = (token: string | undefined, serverId: string | undefined) =>
  t.app.inject({ method: 'POST', url: MATERIAL_PATH, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(serverId ? { 'x-server-id': serverId } : {}) } });

const reasons = async () => (await t.services.events.latest(clusterId, 100)).map((e) => e.reason);

test('the bound server gets its files once, as text lines, never cached; a second fetch is refused (410) and written in the timeline', async () => {
  const server = randomUUID();
  const token = await mint('k1-control-plane-a0000', server);
  const first = await fetchMaterial(token, server);
  assert.equal(first.statusCode, 200, first.body);
  assert.match(String(first.headers['content-type']), /^text\/plain/);
  assert.equal(first.headers['cache-control'], 'no-store');
  assert.deepEqual(parseMaterialLines(first.body), FILES);
  const again = await fetchMaterial(token, server);
  assert.equal(again.statusCode, 410);
  assert.match(JSON.parse(again.body).errors[0].detail, /used/i);
  const events = await t.services.events.latest(clusterId, 100);
  assert.ok(events.some((e) => e.reason === 'NodeMaterialFetched' && e.message.includes('k1-control-plane-a0000')));
  const refused = events.find((e) => e.reason === 'NodeMaterialRefused');
  assert.ok(refused && /already used/.test(refused.message) && refused.severity === 'warning', JSON.stringify(refused));
  const [row] = await t.services.db.query('SELECT material, used_at FROM node_material WHERE token_hash = $1', [createHash('sha256').update(token).digest('hex')]);
  assert.equal(row.material, null, 'a used token keeps no material');
  assert.ok(row.used_at);
});

test('another server presenting the token: 403, and the timeline says whose token it was; the owner still gets it', async () => {
  const owner = randomUUID();
  const token = await mint('k1-worker-b0000', owner);
  const thief = await fetchMaterial(token, randomUUID());
  assert.equal(thief.statusCode, 403);
  assert.ok((await t.services.events.latest(clusterId, 100)).some((e) => e.reason === 'NodeMaterialRefused' && e.message.includes('another server') && e.message.includes('k1-worker-b0000')));
  assert.equal((await fetchMaterial(token, owner)).statusCode, 200);
});

test('a token not yet bound to its server: 409 (the node asks again), nothing taken; bound, it works', async () => {
  const server = randomUUID();
  const token = await mint('k1-worker-b0001', null);
  const before = (await reasons()).length;
  const early = await fetchMaterial(token, server);
  assert.equal(early.statusCode, 409);
  assert.equal((await reasons()).length, before, 'not a refusal worth the timeline');
  await t.services.nodeMaterial.bind(clusterId, 'k1-worker-b0001', server);
  assert.equal((await fetchMaterial(token, server)).statusCode, 200);
});

test('an expired token: 410 and an event; unknown, missing or malformed tokens and server ids: 401', async () => {
  const server = randomUUID();
  const token = await mint('k1-worker-b0002', server, -1000);
  const late = await fetchMaterial(token, server);
  assert.equal(late.statusCode, 410);
  assert.ok((await t.services.events.latest(clusterId, 100)).some((e) => e.reason === 'NodeMaterialRefused' && /expired/.test(e.message)));
  for (const [tok, id] of [[randomBytes(32).toString('base64url'), server], [undefined, server], [token, undefined], ['short', server], [token, "x'; DROP TABLE node_material; --"]] as const) {
    const r = await fetchMaterial(tok, id);
    assert.equal(r.statusCode, 401, `${tok} ${id}: ${r.body}`);
    assert.equal(JSON.parse(r.body).error?.message, 'This node material token is not valid.', 'the 401 envelope (as Magnum answers 401s), saying nothing more');
  }
});

test('two fetches of one token at once: exactly one gets the material', async () => {
  const server = randomUUID();
  const token = await mint('k1-worker-b0003', server);
  const answers = await Promise.all(Array.from({ length: 8 }, () => fetchMaterial(token, server)));
  assert.deepEqual(answers.map((a) => a.statusCode).sort(), [200, 410, 410, 410, 410, 410, 410, 410]);
});

/** A raw request on its own connection, the node's side closed (FIN) right after it is sent; the answer read. */
function fetchThenHalfClose(token: string, serverId: string): Promise<string> {
  const url = new URL(MATERIAL_PATH, t.apiUrl);
  return new Promise((resolve, reject) => {
    const sock = connect({ host: url.hostname, port: Number(url.port), allowHalfOpen: true }, () => {
      sock.end(`POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\nX-Server-Id: ${serverId}\r\nContent-Length: 0\r\n\r\n`);
    });
    let got = '';
    sock.setEncoding('utf8').on('data', (d: string) => (got += d)).on('end', () => resolve(got)).on('error', reject);
  });
}

test('a node that closed its side before the answer (its curl gave up) gets no material and its token is not spent: its next fetch gets the files', async () => {
  const server = randomUUID();
  const token = await mint('k1-worker-c0000', server);
  // Node's HTTP server ends a connection whose client ended its side: nothing, or the 409 saying so, comes back.
  const answer = await fetchThenHalfClose(token, server);
  assert.ok(answer === '' || /^HTTP\/1\.1 409 [^]*node_material_client_gone/.test(answer), answer.slice(0, 300));
  // Not taken, or taken and given back as the connection closed (the give-back runs as it closes): the token stands.
  const hash = createHash('sha256').update(token).digest('hex');
  let row: { material: string | null; used_at: Date | null } | undefined;
  for (let i = 0; i < 100; i++) {
    [row] = await t.services.db.query('SELECT material, used_at FROM node_material WHERE token_hash = $1', [hash]);
    if (row?.used_at === null) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(row?.used_at, null, 'the token stands');
  assert.notEqual(row?.material, null);
  const next = await fetchMaterial(token, server);
  assert.equal(next.statusCode, 200, next.body);
  assert.deepEqual(parseMaterialLines(next.body), FILES);
  assert.equal((await fetchMaterial(token, server)).statusCode, 410, 'then spent, as ever');
});

test('a take whose answer could not be written is given back once, for the take it undoes alone', async () => {
  const server = randomUUID();
  const token = await mint('k1-worker-d0000', server);
  const hash = createHash('sha256').update(token).digest('hex');
  const { takeNodeMaterial } = await import('../../../src/clusters/node-material.js');
  const taken = await takeNodeMaterial(t.services, { token, serverId: server, peer: '127.0.0.1' });
  assert.deepEqual(parseMaterialLines(taken.lines), FILES);
  assert.equal((await fetchMaterial(token, server)).statusCode, 410, 'taken');
  await taken.undelivered();
  assert.ok((await reasons()).includes('NodeMaterialUndelivered'));
  const again = await takeNodeMaterial(t.services, { token, serverId: server, peer: '127.0.0.1' });
  // The first take's give-back, late (after the token was taken again): undoes nothing.
  await taken.undelivered();
  const [row] = await t.services.db.query('SELECT material, used_at FROM node_material WHERE token_hash = $1', [hash]);
  assert.ok(row.used_at, 'the second take stands');
  assert.equal(row.material, null);
  assert.deepEqual(parseMaterialLines(again.lines), FILES);
});
