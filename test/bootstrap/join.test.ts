// Join material from the cluster's PKI: kubeadm's discovery CA hash, the bootstrap token's form, and the checks
// that a certificate is a CA and that a key belongs to its certificate.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { assertBootstrapToken, assertCertificate, assertControlPlanePki, assertKeyPair, caCertHash } from '../../src/bootstrap/join.js';
import { keystoneCa, pki, TOKEN } from '../support/spec-fixtures.js';

test('the CA hash equals what openssl computes from the certificate', () => {
  const der = execFileSync('sh', ['-c', 'openssl x509 -pubkey -noout | openssl pkey -pubin -outform DER | openssl dgst -sha256 -hex'], { input: pki.ca.cert }).toString();
  assert.equal(caCertHash(pki.ca.cert), `sha256:${der.trim().split(' ').pop()}`);
});

test('the CA hash is of the public key: stable for the certificate, different for another CA', () => {
  assert.match(caCertHash(pki.ca.cert), /^sha256:[0-9a-f]{64}$/);
  assert.notEqual(caCertHash(pki.ca.cert), caCertHash(pki.etcdCa.cert));
  assert.throws(() => caCertHash('not a certificate'));
});

test('bootstrap tokens: six and sixteen lower-case letters or digits', () => {
  assert.doesNotThrow(() => assertBootstrapToken(TOKEN));
  for (const bad of ['abcdef.0123456789ABCDEF', 'abcde.0123456789abcdef', 'abcdef0123456789abcdef', 'abcdef.0123456789abcdef\n', '']) {
    assert.throws(() => assertBootstrapToken(bad), /bootstrap token must match/, JSON.stringify(bad));
  }
});

test('a certificate must parse and be a CA; the error names what it was', () => {
  assert.doesNotThrow(() => assertCertificate(keystoneCa, 'keystone ca'));
  assert.throws(() => assertCertificate('garbage', 'ca'), /^Error: ca: /);
  const leaf = execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', '/CN=leaf', '-addext', 'basicConstraints=critical,CA:FALSE', '-keyout', '/dev/null', '-days', '1'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString();
  assert.throws(() => assertCertificate(leaf, 'ca'), /^Error: ca: not a CA certificate$/);
});

test('a key pair: the key must be the certificate\'s; the control plane\'s service-account halves must match', () => {
  assert.doesNotThrow(() => assertKeyPair(pki.frontProxyCa, 'front-proxy ca'));
  assert.throws(() => assertKeyPair({ cert: pki.frontProxyCa.cert, key: pki.ca.key }, 'front-proxy ca'), /^Error: front-proxy ca: key does not match certificate$/);
  assert.throws(() => assertKeyPair({ cert: pki.ca.cert, key: 'not a key' }, 'ca'), /key does not match certificate/);
  assert.doesNotThrow(() => assertControlPlanePki(pki));
  assert.throws(() => assertControlPlanePki({ ...pki, etcdCa: { cert: pki.etcdCa.cert, key: pki.ca.key } }), /^Error: etcd ca: key does not match/);
  const otherPub = createPublicKey(createPrivateKey(pki.ca.key)).export({ type: 'spki', format: 'pem' }).toString();
  assert.throws(() => assertControlPlanePki({ ...pki, serviceAccount: { key: pki.serviceAccount.key, pub: otherPub } }), /service account: public key does not match private key/);
});
