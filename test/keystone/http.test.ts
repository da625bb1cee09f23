// The Keystone clients' one JSON call (src/keystone/http.ts) against a local server: JSON or text bodies,
// 4xx answered, 5xx, no answer and a timeout as UnreachableError naming the call.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { callJson, UnreachableError } from '../../src/keystone/http.js';
import { closedPort } from '../support/net.js';

let server: Server;
let base: string;
let seen: { method?: string; headers?: IncomingHttpHeaders; body?: string } = {};

before(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen = { method: req.method, headers: req.headers, body };
      const path = req.url ?? '';
      if (path === '/json') res.writeHead(201, { 'content-type': 'application/json', 'x-subject-token': 'tok' }).end('{"ok":true}');
      else if (path === '/text') res.writeHead(404).end('not here');
      else if (path === '/empty') res.writeHead(204).end();
      else if (path === '/fail') res.writeHead(503).end('{"error":{}}');
      else if (path === '/slow') setTimeout(() => res.writeHead(200).end('{}'), 1000);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((r) => server.close(() => r())));

test('a JSON answer: status, headers and parsed body; the body sent as JSON with its content type', async () => {
  const res = await callJson(`${base}/json`, { method: 'POST', body: { a: 1 }, headers: { 'x-auth-token': 't' }, timeoutMs: 2000 });
  assert.deepEqual([res.status, res.body, res.headers.get('x-subject-token')], [201, { ok: true }, 'tok']);
  assert.deepEqual([seen.method, seen.body, seen.headers?.['content-type'], seen.headers?.accept, seen.headers?.['x-auth-token']], ['POST', '{"a":1}', 'application/json', 'application/json', 't']);
});

test('4xx are answers: a text body kept as text, an empty one undefined; no content type without a body', async () => {
  const res = await callJson(`${base}/text`, { method: 'GET', timeoutMs: 2000 });
  assert.deepEqual([res.status, res.body], [404, 'not here']);
  assert.equal(seen.headers?.['content-type'], undefined);
  assert.deepEqual([(await callJson(`${base}/empty`, { method: 'DELETE', timeoutMs: 2000 })).body], [undefined]);
});

test('a 5xx, a closed port and a timeout are UnreachableError naming the call', async () => {
  await assert.rejects(callJson(`${base}/fail`, { method: 'GET', timeoutMs: 2000 }), (e: unknown) => e instanceof UnreachableError && e.message === `GET ${base}/fail: HTTP 503`);
  const closed = `http://127.0.0.1:${await closedPort()}/v3`;
  await assert.rejects(callJson(closed, { method: 'GET', timeoutMs: 2000 }), (e: unknown) => e instanceof UnreachableError && e.message.startsWith(`GET ${closed}: `));
  const start = Date.now();
  await assert.rejects(callJson(`${base}/slow`, { method: 'GET', timeoutMs: 100 }), UnreachableError);
  assert.ok(Date.now() - start < 900);
});
