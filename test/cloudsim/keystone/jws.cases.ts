// Keystone emulator in JWS mode: ES256 compact JWS with exactly Keystone's claims, verifiable with jose.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeJwt, decodeProtectedHeader, generateKeyPair, importSPKI, jwtVerify, SignJWT } from 'jose';
import type { KeystoneSim } from '../../../cloudsim/keystone/index.js';
import { api, assertKeystoneError, Clock, issueRaw, login, projectScope, roleNames, sim, tokenFor, validate } from './helpers.js';

async function verify(ks: KeystoneSim, token: string): Promise<Record<string, unknown>> {
  const pem = ks.jwsPublicKeyPem();
  assert.ok(pem);
  const key = await importSPKI(pem, 'ES256');
  const { payload, protectedHeader } = await jwtVerify(token, key, { algorithms: ['ES256'] });
  assert.deepEqual(protectedHeader, { alg: 'ES256', typ: 'JWT' });
  return payload;
}

const BASE_CLAIMS = ['exp', 'iat', 'openstack_audit_ids', 'openstack_methods', 'sub'];

test('JWS tokens: header {alg,typ} without kid, exactly the Keystone claim set, SPKI PEM verifies them', async () => {
  const ks = await sim({ tokenFormat: 'jws', tokenTtlSeconds: 600 });
  const pem = ks.jwsPublicKeyPem()!;
  assert.match(pem, /^-----BEGIN PUBLIC KEY-----\n[\s\S]+\n-----END PUBLIC KEY-----\n?$/);

  const demo = await login(ks, 'demo', projectScope('demo'));
  assert.match(demo.token, /^eyJ[\w-]+\.eyJ[\w-]+\.[\w-]+$/);
  assert.deepEqual(decodeProtectedHeader(demo.token), { alg: 'ES256', typ: 'JWT' });
  const claims = await verify(ks, demo.token);
  assert.deepEqual(Object.keys(claims).sort(), [...BASE_CLAIMS, 'openstack_project_id'].sort());
  assert.equal(claims.sub, ks.state.userId('demo'));
  assert.equal(claims.openstack_project_id, ks.state.projectId('demo'));
  assert.deepEqual(claims.openstack_methods, ['password']);
  assert.deepEqual(claims.openstack_audit_ids, demo.body.token.audit_ids);
  assert.equal((claims.exp as number) - (claims.iat as number), 600);
  assert.equal((claims.exp as number) * 1000, Date.parse(demo.body.token.expires_at));
  assert.equal((claims.iat as number) * 1000, Date.parse(demo.body.token.issued_at));

  const unscoped = await verify(ks, (await login(ks, 'demo', 'unscoped')).token);
  assert.deepEqual(Object.keys(unscoped).sort(), BASE_CLAIMS);

  const system = await verify(ks, (await login(ks, 'admin', { system: { all: true } })).token);
  assert.equal(system.openstack_system, 'all');
  assert.deepEqual(Object.keys(system).sort(), [...BASE_CLAIMS, 'openstack_system'].sort());

  ks.state.grant(ks.state.userId('admin'), { kind: 'domain', id: 'default' }, ks.state.roleId('admin'));
  const domain = await verify(ks, (await login(ks, 'admin', { domain: { id: 'default' } })).token);
  assert.equal(domain.openstack_domain_id, 'default');
  assert.deepEqual(Object.keys(domain).sort(), [...BASE_CLAIMS, 'openstack_domain_id'].sort());

  const rescopedRes = await issueRaw(ks, { identity: { methods: ['token'], token: { id: demo.token } }, scope: projectScope('demo') });
  const rescoped = await verify(ks, rescopedRes.headers['x-subject-token'] as string);
  assert.deepEqual(rescoped.openstack_methods, ['token', 'password']);
  assert.equal((rescoped.openstack_audit_ids as string[])[1], demo.body.token.audit_ids[0]);
  assert.equal(rescoped.exp, claims.exp);

  const created = await api(ks, demo.token, 'POST', `/v3/users/${ks.state.userId('demo')}/application_credentials`, {
    application_credential: { name: 'jws' },
  });
  const cred = created.json().application_credential;
  const credRes = await issueRaw(ks, { identity: { methods: ['application_credential'], application_credential: { id: cred.id, secret: cred.secret } } });
  const credClaims = await verify(ks, credRes.headers['x-subject-token'] as string);
  assert.deepEqual(Object.keys(credClaims).sort(), [...BASE_CLAIMS, 'openstack_app_cred_id', 'openstack_project_id'].sort());
  assert.equal(credClaims.openstack_app_cred_id, cred.id);
});

test('JWS validation still checks signature, revocation and current roles', async () => {
  const ks = await sim({ tokenFormat: 'jws' });
  const service = await tokenFor(ks, 'magnum');
  const reader = await tokenFor(ks, 'demo-reader');
  const ok = await validate(ks, service, reader);
  assert.equal(ok.statusCode, 200);
  assert.equal(ok.headers['x-subject-token'], reader);
  assert.deepEqual(roleNames(ok.json()), ['reader']);

  ks.state.assignRole(ks.state.userId('demo-reader'), ks.state.projectId('demo'), 'member');
  assert.deepEqual(roleNames((await validate(ks, service, reader)).json()), ['member', 'reader']);

  // Same claims, signed by another key: not ours.
  const claims = decodeJwt(reader);
  const { privateKey } = await generateKeyPair('ES256');
  const forged = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'JWT' }).sign(privateKey);
  assertKeystoneError(await validate(ks, service, forged), 404);
  assertKeystoneError(await validate(ks, forged, reader), 401);
  // Tampered payload with the original signature.
  const [h, , s] = reader.split('.');
  const tampered = `${h}.${Buffer.from(JSON.stringify({ ...claims, sub: ks.state.userId('admin') })).toString('base64url')}.${s}`;
  assertKeystoneError(await validate(ks, service, tampered), 404);

  const del = await ks.app.inject({ method: 'DELETE', url: '/v3/auth/tokens', headers: { 'x-auth-token': service, 'x-subject-token': reader } });
  assert.equal(del.statusCode, 204);
  assertKeystoneError(await validate(ks, service, reader), 404);
  // The signature alone would still pass offline: that is exactly why services must ask Keystone.
  await verify(ks, reader);

  // A password change in the same second still allows a fresh login (ordering is not by whole-second iat).
  const admin = await tokenFor(ks, 'admin');
  const demoToken = await tokenFor(ks, 'demo');
  await api(ks, admin, 'PATCH', `/v3/users/${ks.state.userId('demo')}`, { user: { password: 'pw2' } });
  assertKeystoneError(await validate(ks, service, demoToken), 404);
  const fresh = await login(ks, 'demo', projectScope('demo'), { password: 'pw2' });
  assert.equal((await validate(ks, service, fresh.token)).statusCode, 200);
});

test('JWS expiry is enforced by Keystone itself (allow_expired works), and opaque mode has no PEM', async () => {
  const clock = new Clock();
  const ks = await sim({ tokenFormat: 'jws', tokenTtlSeconds: 5, now: clock.now });
  const demo = await tokenFor(ks, 'demo');
  clock.advance(6);
  const service = await tokenFor(ks, 'magnum');
  assertKeystoneError(await validate(ks, service, demo), 404);
  assert.equal((await validate(ks, service, demo, { query: '?allow_expired=true' })).statusCode, 200);

  const opaque = await sim();
  assert.equal(opaque.jwsPublicKeyPem(), undefined);
  // Two emulators never share keys.
  const other = await sim({ tokenFormat: 'jws' });
  assert.notEqual(other.jwsPublicKeyPem(), ks.jwsPublicKeyPem());
});
