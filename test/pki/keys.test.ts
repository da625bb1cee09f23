// Key material for the cluster PKI (src/pki/keys.ts): ECDSA P-256 pairs, PEM out, PEM private keys of
// either type back in as signing keys (PKCS#8, SEC1, PKCS#1), errors that never quote the key.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, createPublicKey, verify } from 'node:crypto';
import { generateKeyPair, importSigningKey, KEY_ALGORITHM, privateKeyPem, publicKeyPem, subtle, trimPem } from '../../src/pki/keys.js';

test('a P-256 pair exported as PKCS#8 and SPKI PEM; the public PEM verifies what the private key signs', async () => {
  const pair = await generateKeyPair();
  assert.deepEqual(pair.privateKey.algorithm, KEY_ALGORITHM);
  const priv = await privateKeyPem(pair.privateKey);
  const pub = await publicKeyPem(pair.publicKey);
  assert.match(priv, /^-----BEGIN PRIVATE KEY-----/);
  assert.match(pub, /^-----BEGIN PUBLIC KEY-----/);
  const signer = await importSigningKey(priv);
  const data = Buffer.from('sa token');
  const sig = Buffer.from(await subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, signer, data));
  assert.equal(verify('sha256', data, { key: createPublicKey(pub), dsaEncoding: 'ieee-p1363' }, sig), true);
});

test('SEC1 EC and PKCS#1 RSA keys import too (an imported or restored CA); RSA signs with SHA-256', async () => {
  const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'sec1', format: 'pem' }).toString();
  assert.deepEqual((await importSigningKey(ec)).algorithm, { name: 'ECDSA', namedCurve: 'P-256' });
  const p384 = generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  assert.deepEqual((await importSigningKey(p384)).algorithm, { name: 'ECDSA', namedCurve: 'P-384' });
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const key = await importSigningKey(rsa);
  assert.equal(key.algorithm.name, 'RSASSA-PKCS1-v1_5');
  assert.deepEqual(key.algorithm, { name: 'RSASSA-PKCS1-v1_5', hash: { name: 'SHA-256' }, modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) });
});

test('what cannot sign is refused without quoting the key', async () => {
  const ed = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const secp256k1 = generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  for (const [pem, why] of [[ed, /unsupported key type ed25519/], [secp256k1, /unsupported curve/], ['-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----', /^CA key cannot be used for signing: /]] as const) {
    await assert.rejects(importSigningKey(pem), (e: unknown) => {
      const msg = (e as Error).message;
      assert.match(msg, why);
      assert.ok(!msg.includes('BEGIN') && !msg.includes(pem.split('\n')[1]!.slice(0, 20)), 'the key is never quoted');
      return true;
    });
  }
});

test('trimPem: no trailing newline, as Magnum writes its PEM', () => {
  assert.equal(trimPem('-----BEGIN X-----\nAA\n-----END X-----\n\n'), '-----BEGIN X-----\nAA\n-----END X-----');
});
