// Secrets at rest (src/security/secret-box.ts): AES-256-GCM under the first key, opened under any key of
// the list (rotation by prepending), bound to its context, refused when tampered; the value names its key
// by a fingerprint, never the key; SECRET_KEYS parsed and checked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { parseSecretKeys, SecretBox, SecretBoxError } from '../../src/security/secret-box.js';

const k1 = randomBytes(32);
const k2 = randomBytes(32);

test('sealed and opened under the same context; each seal differs; neither the plaintext nor a key shows', () => {
  const box = new SecretBox([k1]);
  const a = box.seal('ca private key', 'cluster-ca:c1:kubernetes');
  const b = box.seal('ca private key', 'cluster-ca:c1:kubernetes');
  assert.notEqual(a, b, 'a fresh IV each time');
  assert.match(a, /^v1\.[0-9a-f]{8}\.[\w-]+\.[\w-]+\.[\w-]+$/);
  assert.ok(!a.includes('ca private key') && !a.includes(k1.toString('base64')) && !a.includes(k1.toString('base64url')));
  assert.equal(box.open(a, 'cluster-ca:c1:kubernetes'), 'ca private key');
  assert.equal(box.open(box.seal('', 'x'), 'x'), '');
});

test('bound to its context: another cluster’s or kind’s context does not open it', () => {
  const box = new SecretBox([k1]);
  const sealed = box.seal('secret', 'app-cred:c1');
  assert.throws(() => box.open(sealed, 'app-cred:c2'), (e: unknown) => e instanceof SecretBoxError && e.message === 'sealed value does not authenticate');
});

test('rotation: a new first key seals, the old one still opens; a box without the key names only its fingerprint', () => {
  const old = new SecretBox([k1]);
  const sealedOld = old.seal('s', 'c');
  const rotated = new SecretBox([k2, k1]);
  assert.equal(rotated.open(sealedOld, 'c'), 's');
  const sealedNew = rotated.seal('s', 'c');
  assert.notEqual(sealedNew.split('.')[1], sealedOld.split('.')[1]);
  assert.throws(() => old.open(sealedNew, 'c'), (e: unknown) => e instanceof SecretBoxError && e.message === `sealed with an unknown key ${sealedNew.split('.')[1]}`);
});

test('tampered or malformed values are refused', () => {
  const box = new SecretBox([k1]);
  const [v, id, iv, tag, body] = box.seal('secret value', 'c').split('.') as [string, string, string, string, string];
  const flip = (s: string) => (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
  for (const bad of [[v, id, iv, tag, flip(body)], [v, id, iv, flip(tag), body], [v, id, flip(iv), tag, body]]) {
    assert.throws(() => box.open(bad.join('.'), 'c'), /does not authenticate/);
  }
  for (const bad of ['', 'plain text', 'v2.a.b.c.d', `v1.${id}.${iv}.${tag}`]) assert.throws(() => box.open(bad, 'c'), /not a sealed value/);
  assert.throws(() => new SecretBox([]), /at least one key/);
});

test('parseSecretKeys: comma-separated base64 keys of 32 bytes', () => {
  assert.deepEqual(parseSecretKeys(` ${k1.toString('base64')} , ${k2.toString('base64')},`), [k1, k2]);
  assert.throws(() => parseSecretKeys(''), /at least one key is needed/);
  assert.throws(() => parseSecretKeys(randomBytes(16).toString('base64')), /each key must be 32 bytes, base64-encoded/);
});
