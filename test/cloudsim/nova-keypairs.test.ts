// Keypairs (spec openstack-apis §2.7): generated (with the private key, once) or imported, the
// MD5 fingerprint ssh-keygen prints, per user, 409 on a duplicate name, the key_pairs quota,
// status codes and shapes by microversion, and key_name at server create.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNovaHarness, type NovaHarness } from './nova-harness.js';

let h: NovaHarness;

before(async () => {
  h = await startNovaHarness();
});
after(async () => h.close());

const PUBLIC = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMRsGmEQF5Uk+w/hKV+80J+/d0dN0as4TtNE9jrsYEEo test@cloudsim';
const FINGERPRINT = '2a:c3:02:65:37:d9:5d:fa:2f:7b:1d:1f:37:4d:6b:29';

/** What ssh-keygen says of a public key line: its MD5 fingerprint. */
function sshKeygenFingerprint(publicKey: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'nova-key-'));
  try {
    writeFileSync(join(dir, 'k.pub'), `${publicKey}\n`);
    const out = execFileSync('ssh-keygen', ['-l', '-E', 'md5', '-f', join(dir, 'k.pub')]).toString();
    return /MD5:([0-9a-f:]+)/.exec(out)![1]!;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('keypairs', () => {
  test('import: 201 from 2.2 with the fingerprint and type; show has the record fields', async () => {
    const r = await h.ok(201, 'POST', '/os-keypairs', 'demo', { keypair: { name: 'imported', public_key: PUBLIC } }, '2.2');
    assert.deepEqual(r.keypair, { name: 'imported', public_key: PUBLIC, fingerprint: FINGERPRINT, user_id: r.keypair.user_id, type: 'ssh' });
    const shown = (await h.ok(200, 'GET', '/os-keypairs/imported', 'demo', undefined, '2.2')).keypair;
    assert.deepEqual(
      Object.keys(shown).sort(),
      ['created_at', 'deleted', 'deleted_at', 'fingerprint', 'id', 'name', 'public_key', 'type', 'updated_at', 'user_id'],
    );
    assert.equal(shown.deleted, false);
  });

  test('generate (before 2.92): an RSA key ssh-keygen reads, the private key returned once', async () => {
    const r = await h.ok(200, 'POST', '/os-keypairs', 'demo', { keypair: { name: 'generated' } });
    const k = r.keypair;
    assert.match(k.public_key, /^ssh-rsa AAAA[A-Za-z0-9+/=]+ Generated-by-Nova$/);
    assert.match(k.private_key, /^-----BEGIN RSA PRIVATE KEY-----\n/);
    assert.equal(k.type, undefined, 'no type at 2.1');
    assert.equal(sshKeygenFingerprint(k.public_key), k.fingerprint);
    const shown = (await h.ok(200, 'GET', '/os-keypairs/generated', 'demo')).keypair;
    assert.equal(shown.private_key, undefined);
    const msg = await h.fails(400, 'badRequest', 'POST', '/os-keypairs', 'demo', { keypair: { name: 'late' } }, '2.92');
    assert.match(msg, /'public_key' is a required property$/);
  });

  test('the list is double-nested; keypairs are per user', async () => {
    const r = await h.ok(200, 'GET', '/os-keypairs', 'demo', undefined, '2.2');
    assert.deepEqual(r.keypairs.map((k: { keypair: { name: string } }) => k.keypair.name), ['generated', 'imported']);
    assert.deepEqual(Object.keys(r.keypairs[0].keypair).sort(), ['fingerprint', 'name', 'public_key', 'type']);
    const reader = await h.ok(200, 'GET', '/os-keypairs', 'demo-reader');
    assert.deepEqual(reader.keypairs, [], 'another user of the same project sees none');
    await h.fails(404, 'itemNotFound', 'GET', '/os-keypairs/imported', 'demo-reader');
  });

  test('409 on a duplicate name; 400 on bad data and bad names; delete 202 at 2.1, 204 from 2.2', async () => {
    const dup = await h.fails(409, 'conflictingRequest', 'POST', '/os-keypairs', 'demo', { keypair: { name: 'imported', public_key: PUBLIC } }, '2.2');
    assert.equal(dup, "Key pair 'imported' already exists.");
    const bad = await h.fails(400, 'badRequest', 'POST', '/os-keypairs', 'demo', { keypair: { name: 'bad', public_key: 'ssh-rsa nope' } }, '2.2');
    assert.equal(bad, 'Keypair data is invalid: failed to generate fingerprint');
    await h.fails(400, 'badRequest', 'POST', '/os-keypairs', 'demo', { keypair: { name: 'a@b', public_key: PUBLIC } }, '2.91');
    await h.ok(201, 'POST', '/os-keypairs', 'demo', { keypair: { name: 'a@b.c', public_key: PUBLIC } }, '2.92');
    assert.equal((await h.call('DELETE', '/os-keypairs/a@b.c', 'demo')).status, 202);
    await h.ok(201, 'POST', '/os-keypairs', 'demo', { keypair: { name: 'gone', public_key: PUBLIC } }, '2.2');
    assert.equal((await h.call('DELETE', '/os-keypairs/gone', 'demo', undefined, '2.2')).status, 204);
    assert.match(await h.fails(404, 'itemNotFound', 'DELETE', '/os-keypairs/gone', 'demo'), /^Keypair gone not found for user \w+$/);
  });

  test('key_pairs quota: 403', async () => {
    h.sims.nova.state.setQuota(h.projects.other, { key_pairs: 1 });
    await h.ok(201, 'POST', '/os-keypairs', 'other', { keypair: { name: 'one', public_key: PUBLIC } }, '2.2');
    const msg = await h.fails(403, 'forbidden', 'POST', '/os-keypairs', 'other', { keypair: { name: 'two', public_key: PUBLIC } }, '2.2');
    assert.equal(msg, 'Quota exceeded, too many key pairs.');
  });

  test('pagination from 2.35 by name', async () => {
    const page = await h.ok(200, 'GET', '/os-keypairs?limit=1', 'demo', undefined, '2.35');
    assert.equal(page.keypairs.length, 1);
    const next = new URL(page.keypairs_links[0].href);
    assert.equal(next.searchParams.get('marker'), page.keypairs[0].keypair.name);
  });

  test('a server created with key_name shows it; the audit lists keypairs', async () => {
    const id = await h.boot('demo', { name: 'keyed', key_name: 'imported' });
    assert.equal((await h.until(id, 'ACTIVE')).key_name, 'imported');
    const audit = h.sims.nova.state.auditResources().filter((r) => r.type === 'keypair' && r.project_id === h.projects.demo);
    assert.deepEqual(audit.map((r) => r.name).sort(), ['generated', 'imported']);
  });
});
