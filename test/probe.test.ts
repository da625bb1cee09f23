// The containers' health check (src/probe.ts), run as docker-compose runs it: exit 0 when the URL answers
// 2xx within 3 s, else 1 with one line saying why; no URL is a usage error, exit 2.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { closedPort } from './support/net.js';

const root = fileURLToPath(new URL('..', import.meta.url));
let server: Server;
let base: string;
before(async () => {
  server = createServer((req, res) => {
    if (req.url === '/readyz') res.writeHead(200).end('{"status":"ok"}');
    else if (req.url === '/down') res.writeHead(503).end('{}');
    else if (req.url === '/slow') setTimeout(() => res.writeHead(200).end(), 5000);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  return new Promise<void>((r) => server.close(() => r()));
});

const probe = (...args: string[]): Promise<{ code: number; stderr: string }> =>
  new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/probe.ts', ...args], { cwd: root, timeout: 60_000 }, (e, _stdout, stderr) => {
      resolve({ code: e ? (typeof e.code === 'number' ? e.code : 1) : 0, stderr });
    });
  });

test('2xx: exit 0, nothing said', { timeout: 60_000 }, async () => {
  assert.deepEqual(await probe(`${base}/readyz`), { code: 0, stderr: '' });
});

test('an error status, a closed port, a timeout: exit 1 with the URL and why', { timeout: 60_000 }, async () => {
  assert.deepEqual(await probe(`${base}/down`), { code: 1, stderr: `${base}/down: HTTP 503\n` });
  const port = await closedPort();
  assert.deepEqual(await probe(`http://127.0.0.1:${port}/`), { code: 1, stderr: `http://127.0.0.1:${port}/: ECONNREFUSED\n` });
  const slow = await probe(`${base}/slow`);
  assert.equal(slow.code, 1);
  assert.match(slow.stderr, new RegExp(`^${base}/slow: .*(timeout|aborted)`, 'i'));
});

test('no URL, or not an http(s) one: usage, exit 2', { timeout: 60_000 }, async () => {
  assert.deepEqual(await probe(), { code: 2, stderr: 'usage: node dist/src/probe.js <http(s) URL>\n' });
  assert.equal((await probe('ftp://x')).code, 2);
});
