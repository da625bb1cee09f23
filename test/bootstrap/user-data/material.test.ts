// A node's material (src/bootstrap/user-data/material.ts): what the user-data says (where to fetch, a one-time
// token: nothing else), the line format both ends share, and the script's part run by a real bash with curl
// against a loopback server: it retries while the token is not yet bound (409), writes each file with its
// mode, forgets the token, and stops naming the status when refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fetchMaterial, MATERIAL_CA_PATH, MATERIAL_ENV_PATH, MATERIAL_PATH, materialLines, materialSourceFiles, parseMaterialLines } from '../../../src/bootstrap/user-data/material.js';

const TOKEN = 'Zm9vYmFyYmF6cXV1eC0wMTIzNDU2Nzg5YWJjZGVmZ2g';

test('the user-data names only where to fetch and the token; a token or URL that could break the shell is refused', () => {
  const files = materialSourceFiles({ url: 'https://magnum.example.org:9511/', token: TOKEN });
  assert.deepEqual(files, [{ path: MATERIAL_ENV_PATH, permissions: '0600', content: `MATERIAL_URL='https://magnum.example.org:9511${MATERIAL_PATH}'\nMATERIAL_TOKEN='${TOKEN}'\n` }]);
  assert.equal(materialSourceFiles({ url: 'https://m', token: TOKEN, caCert: 'PEM' })[1]?.path, MATERIAL_CA_PATH);
  assert.throws(() => materialSourceFiles({ url: 'https://m', token: "x'; rm -rf /; '" }), /base64url/);
  assert.throws(() => materialSourceFiles({ url: 'https://m', token: 'short' }), /base64url/);
  for (const url of ["https://m/'$(id)'", 'file:///etc/passwd', 'https://m/a b', 'https://m/`id`']) assert.throws(() => materialSourceFiles({ url, token: TOKEN }), /not a plain http\(s\) URL/);
});

test('lines: mode, path and base64 content; parsed back as they were; a malformed line is refused', () => {
  const files = [
    { path: '/etc/kubernetes/pki/ca.key', content: '-----BEGIN PRIVATE KEY-----\nab cd\n-----END PRIVATE KEY-----\n', permissions: '0600' },
    { path: '/etc/a b', content: 'ünïcødé\n\n', permissions: '0644' },
  ];
  const text = materialLines(files);
  assert.equal(text.split('\n').length, 3);
  assert.doesNotMatch(text, /PRIVATE KEY/);
  assert.throws(() => parseMaterialLines('0600 /etc/x'), /not a material line/);
  assert.throws(() => parseMaterialLines('600 /etc/x YQ=='), /not a material line/);
  assert.throws(() => parseMaterialLines('0600 etc/x YQ=='), /not a material line/);
  assert.deepEqual(parseMaterialLines(materialLines([files[0]!])), [files[0]]);
});

/** The script's block run by bash with curl against `serve`, its fixed paths moved below a temporary folder. */
async function runBlock(serve: (req: IncomingMessage, seen: number) => { status: number; body: string }) {
  const dir = mkdtempSync(join(tmpdir(), 'material-'));
  let seen = 0;
  const requests: { auth?: string; server?: string; method?: string }[] = [];
  const server = createServer((req, res) => {
    requests.push({ auth: req.headers.authorization, server: req.headers['x-server-id'] as string, method: req.method });
    const a = serve(req, seen++);
    res.writeHead(a.status, { 'content-type': 'text/plain' }).end(a.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const env = materialSourceFiles({ url, token: TOKEN })[0]!;
  const at = (p: string) => join(dir, p);
  writeFileSync(at('node-material.env'), env.content);
  const block = fetchMaterial().join('\n').replaceAll(MATERIAL_ENV_PATH, at('node-material.env')).replaceAll(MATERIAL_CA_PATH, at('ca.crt')).replaceAll('/run/magnum', at('run')).replaceAll('sleep 2', 'sleep 0.01');
  const script = ['set -Eeuo pipefail', 'log() { echo "LOG $*"; }', 'fail() { echo "FAILED: $*" >&2; exit 1; }', 'iid=8c1e4b9a-0000-4000-8000-000000000001', block].join('\n');
  const result = await promisify(execFile)('/bin/bash', ['-c', script]).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
  server.close();
  return { dir, requests, result, envLeft: existsSync(at('node-material.env')) };
}

test('bash and curl: asks again while unbound (409), then writes each file with its mode and forgets the token', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'material-files-'));
  const files = [{ path: join(dir, 'pki', 'ca.key'), content: 'KEY\nmaterial\n', permissions: '0600' }, { path: join(dir, 'kubeadm', 'config.yaml'), content: 'kind: x\n', permissions: '0640' }];
  const run = await runBlock((_req, n) => (n < 2 ? { status: 409, body: 'not yet bound' } : { status: 200, body: materialLines(files) }));
  assert.equal(run.result.code, 0, run.result.stderr);
  assert.equal(run.requests.length, 3);
  assert.deepEqual(run.requests[2], { auth: `Bearer ${TOKEN}`, server: '8c1e4b9a-0000-4000-8000-000000000001', method: 'POST' });
  for (const f of files) {
    assert.equal(readFileSync(f.path, 'utf8'), f.content);
    assert.equal((statSync(f.path).mode & 0o777).toString(8), f.permissions.slice(1));
  }
  assert.equal(run.envLeft, false, 'the token is forgotten once used');
  assert.ok(!existsSync(join(run.dir, 'run', 'node-material')), 'no copy of the material is left behind');
  assert.match(run.result.stdout, /node material fetched/);
});

test('bash and curl: a refusal (410) stops the boot at once, naming the status and the answer', async () => {
  const run = await runBlock(() => ({ status: 410, body: 'already used' }));
  assert.notEqual(run.result.code, 0);
  assert.equal(run.requests.length, 1);
  assert.match(run.result.stderr, /node material refused \(HTTP 410\): already used/);
});
