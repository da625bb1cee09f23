// The cluster PKI: three CAs and the service-account key, as kubeadm and the renderer take them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPrivateKey, createPublicKey, sign, verify, X509Certificate } from 'node:crypto';
import { assertControlPlanePki, caCertHash } from '../../src/bootstrap/join.js';
import { renderUserData } from '../../src/bootstrap/user-data/userdata.js';
import { parseClusterSpec } from '../../src/cluster-spec/parse.js';
import { CA_VALIDITY_DAYS, generateClusterPki, kubernetesCaName } from '../../src/pki/index.js';
import { input, TOKEN } from '../support/spec-fixtures.js';
import { opensslText, opensslVerify } from './openssl.js';

const UUID = '5d12f6fd-a196-4bf0-ae4c-1f639a523a52';
const DAY = 86_400_000;

test('three self-signed ECDSA P-256 CAs: CA:TRUE and keyCertSign/cRLSign/digitalSignature, both critical, 10 years', async () => {
  const now = new Date();
  const pki = await generateClusterPki({ uuid: UUID, name: 'k1' });
  const subjects = { ca: 'CN = k1', etcdCa: 'CN = etcd-ca', frontProxyCa: 'CN = front-proxy-ca' };
  for (const field of ['ca', 'etcdCa', 'frontProxyCa'] as const) {
    const { cert, key } = pki[field];
    assert.ok(!cert.endsWith('\n') && !key.endsWith('\n'), `${field}: PEM without a trailing newline`);
    const text = opensslText(cert);
    assert.match(text, new RegExp(`Issuer: ${subjects[field]}\\n`), field);
    assert.match(text, new RegExp(`Subject: ${subjects[field]}\\n`), field);
    assert.match(text, /X509v3 Basic Constraints: critical\n\s+CA:TRUE\n/);
    assert.match(text, /X509v3 Key Usage: critical\n\s+Digital Signature, Certificate Sign, CRL Sign\n/);
    assert.match(text, /X509v3 Subject Key Identifier/);
    assert.match(text, /Public Key Algorithm: id-ecPublicKey[\s\S]*NIST CURVE: P-256/);
    assert.match(text, /Signature Algorithm: ecdsa-with-SHA256/);
    assert.match(opensslVerify(cert, cert), /: OK\n/, 'self-signed and valid');
    const x = new X509Certificate(cert);
    assert.ok(x.ca);
    assert.ok(x.checkPrivateKey(createPrivateKey(key)));
    const notAfter = Date.parse(x.validTo);
    assert.ok(Math.abs(notAfter - (now.getTime() + CA_VALIDITY_DAYS * DAY)) < 60_000, `${field} valid for ten years`);
    assert.ok(Date.parse(x.validFrom) <= now.getTime() - DAY + 60_000, 'backdated a day for clock skew');
  }
  assert.equal(new Set([pki.ca.key, pki.etcdCa.key, pki.frontProxyCa.key, pki.serviceAccount.key]).size, 4, 'four distinct keys');
});

test('the Kubernetes CA is named after the cluster, or its UUID when the name is empty or too long for a CN', async () => {
  assert.equal(kubernetesCaName({ uuid: UUID, name: 'prod-eu' }), 'prod-eu');
  assert.equal(kubernetesCaName({ uuid: UUID, name: '' }), UUID);
  assert.equal(kubernetesCaName({ uuid: UUID, name: null }), UUID);
  assert.equal(kubernetesCaName({ uuid: UUID, name: 'x'.repeat(65) }), UUID);
  const pki = await generateClusterPki({ uuid: UUID, name: '' });
  assert.match(new X509Certificate(pki.ca.cert).subject, new RegExp(`^CN=${UUID}$`));
});

test('the service-account key pair signs and verifies ES256 tokens (kube-apiserver sa.key / sa.pub)', async () => {
  const { serviceAccount } = await generateClusterPki({ uuid: UUID, name: 'k1' });
  assert.match(serviceAccount.key, /^-----BEGIN PRIVATE KEY-----\n/);
  assert.match(serviceAccount.pub, /^-----BEGIN PUBLIC KEY-----\n/);
  const key = createPrivateKey(serviceAccount.key);
  assert.equal(key.asymmetricKeyType, 'ec');
  assert.equal(key.asymmetricKeyDetails?.namedCurve, 'prime256v1');
  const data = Buffer.from('header.payload');
  const signature = sign('sha256', data, { key, dsaEncoding: 'ieee-p1363' });
  assert.equal(signature.length, 64, 'a JWS ES256 signature');
  assert.ok(verify('sha256', data, { key: createPublicKey(serviceAccount.pub), dsaEncoding: 'ieee-p1363' }, signature));
});

test('what the bootstrap renderer needs: it accepts the PKI and writes it under /etc/kubernetes/pki', async () => {
  const pki = await generateClusterPki({ uuid: UUID, name: 'k1' });
  assertControlPlanePki(pki);
  assert.match(caCertHash(pki.ca.cert), /^sha256:[0-9a-f]{64}$/);
  const { spec } = parseClusterSpec(input({ labels: { kube_tag: 'v1.36.1' } }));
  const endpoint = { address: '10.0.0.10' };
  const userData = renderUserData(spec, { role: 'init', endpoint, bootstrapToken: TOKEN, nodeName: 'k1-control-plane-a0000', pki });
  for (const path of ['ca.crt', 'ca.key', 'etcd/ca.crt', 'etcd/ca.key', 'front-proxy-ca.crt', 'front-proxy-ca.key', 'sa.key', 'sa.pub']) {
    assert.ok(userData.includes(`/etc/kubernetes/pki/${path}`), path);
  }
  const worker = renderUserData(spec, { role: 'worker', endpoint, bootstrapToken: TOKEN, nodeName: 'k1-worker-b0000', caCert: pki.ca.cert });
  assert.ok(!worker.includes('PRIVATE KEY'), 'workers never get CA keys');
});
