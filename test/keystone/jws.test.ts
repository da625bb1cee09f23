// The offline pre-filter for Keystone JWS tokens (src/keystone/jws.ts): a token some configured ES256 key
// verifies and that has not expired passes; anything else (another key, another algorithm, tampered,
// expired, not shaped as a JWS) does not; a key that is not an ES256 SPKI PEM is a configuration error.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { exportSPKI, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { ConfigError } from '../../src/config.js';
import { JwsVerifier } from '../../src/keystone/jws.js';

let keystoneKey: { privateKey: CryptoKey; pem: string };
let otherKey: { privateKey: CryptoKey; pem: string };
const pair = async () => {
  const k = await generateKeyPair('ES256', { extractable: true });
  return { privateKey: k.privateKey, pem: await exportSPKI(k.publicKey) };
};
before(async () => {
  keystoneKey = await pair();
  otherKey = await pair();
});

const sign = (key: CryptoKey, expiresIn = '1h') => new SignJWT({ sub: 'u' }).setProtectedHeader({ alg: 'ES256' }).setIssuedAt().setExpirationTime(expiresIn).sign(key);

test('a token of a configured key passes; of another key, tampered or expired it does not', async () => {
  const v = new JwsVerifier([otherKey.pem, keystoneKey.pem]);
  await v.ready();
  const good = await sign(keystoneKey.privateKey);
  assert.equal(await v.verify(good), true, 'every key is tried: Keystone sets no kid');
  assert.equal(await new JwsVerifier([otherKey.pem]).verify(good), false);
  const [h, p, s] = good.split('.');
  assert.equal(await v.verify(`${h}.${p}.${s!.slice(0, -4)}AAAA`), false);
  assert.equal(await v.verify(await sign(keystoneKey.privateKey, '-1m')), false);
});

test('not shaped as a JWS (a fernet token, garbage, an unsigned token): refused without a key tried', async () => {
  const v = new JwsVerifier([keystoneKey.pem]);
  for (const t of ['gAAAAABnot-a-jws', '', 'a.b', `eyJhbGciOiJub25lIn0.${Buffer.from('{}').toString('base64url')}.`]) assert.equal(await v.verify(t), false, t);
});

test('a key that is not an ES256 public key in SPKI PEM: ready() rejects with a ConfigError naming it', async () => {
  const v = new JwsVerifier([keystoneKey.pem, 'not a key']);
  await assert.rejects(v.ready(), (e: unknown) => e instanceof ConfigError && /KEYSTONE_JWS_PUBLIC_KEYS: key 2 is not an ES256 SPKI PEM public key/.test(e.message));
});
