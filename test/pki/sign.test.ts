// CSR signing with Magnum's semantics (spec §3.5), judged by openssl.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { ApiError } from '../../src/domain/errors.js';
import { DEFAULT_TERM_DAYS, generateClusterPki, signCsr, type ControlPlanePki } from '../../src/pki/index.js';
import { opensslCsr, opensslText, opensslVerify } from './openssl.js';

const DAY = 86_400_000;
let pki: ControlPlanePki;
before(async () => {
  pki = await generateClusterPki({ uuid: '5d12f6fd-a196-4bf0-ae4c-1f639a523a52', name: 'k1' });
});

async function refused(csr: string, pattern: RegExp): Promise<void> {
  await assert.rejects(signCsr(pki.ca, csr), (e: unknown) => {
    assert.ok(e instanceof ApiError, String(e));
    assert.equal(e.status, 400);
    assert.match(e.message, pattern);
    assert.ok(!e.message.includes('PRIVATE KEY'));
    return true;
  });
}

describe('signing', () => {
  test("magnumclient's CSR (RSA-2048, CN=admin, O=system:masters): verified by openssl against the CA", async () => {
    const now = Date.now();
    const { csr } = opensslCsr({ key: 'rsa:2048' });
    const pem = await signCsr(pki.ca, csr);
    assert.ok(pem.startsWith('-----BEGIN CERTIFICATE-----\n'));
    assert.ok(pem.endsWith('-----END CERTIFICATE-----'), 'no trailing newline');
    assert.match(opensslVerify(pki.ca.cert, pem), /: OK\n/);
    const text = opensslText(pem);
    assert.match(text, /Issuer: CN = k1\n/);
    assert.match(text, /Subject: O = system:masters, CN = admin\n/);
    assert.match(text, /Signature Algorithm: ecdsa-with-SHA256/);
    assert.match(text, /Public Key Algorithm: rsaEncryption/);
    assert.match(text, /X509v3 Basic Constraints: critical\n\s+CA:FALSE\n/);
    assert.match(text, /X509v3 Authority Key Identifier/);
    const x = new X509Certificate(pem);
    assert.ok(!x.ca);
    assert.ok(Math.abs(Date.parse(x.validFrom) - (now - DAY)) < 60_000, 'valid from a day ago');
    assert.ok(Math.abs(Date.parse(x.validTo) - (now + DEFAULT_TERM_DAYS * DAY)) < 60_000, 'for 1825 days');
    assert.match(x.serialNumber, /^[0-9A-F]{16,}$/, 'a random serial of at least 64 bits');
    const again = new X509Certificate(await signCsr(pki.ca, csr));
    assert.notEqual(again.serialNumber, x.serialNumber);
  });

  test('the etcd and front-proxy CAs and a custom term', async () => {
    const { csr } = opensslCsr({ subject: '/CN=etcd-client' });
    for (const ca of [pki.etcdCa, pki.frontProxyCa]) {
      const pem = await signCsr(ca, csr, { termDays: 30 });
      assert.match(opensslVerify(ca.cert, pem), /: OK\n/);
      assert.throws(() => opensslVerify(pki.ca.cert, pem), 'not valid under another CA');
      assert.ok(Math.abs(Date.parse(new X509Certificate(pem).validTo) - (Date.now() + 30 * DAY)) < 60_000);
    }
  });

  test('an RSA CA (imported or restored) signs too, with sha256WithRSAEncryption', async () => {
    const read = (n: string) => readFileSync(new URL(`../support/pki-fixtures/${n}`, import.meta.url), 'utf8');
    const rsaCa = { cert: read('ca.crt'), key: read('ca.key') };
    const pem = await signCsr(rsaCa, opensslCsr().csr);
    assert.match(opensslVerify(rsaCa.cert, pem), /: OK\n/);
    assert.match(opensslText(pem), /Signature Algorithm: sha256WithRSAEncryption/);
  });
});

describe('extensions', () => {
  test('keyUsage and extendedKeyUsage are filtered, subjectAltName kept, CA:TRUE turned into CA:FALSE', async () => {
    const { csr } = opensslCsr({
      subject: '/O=system:nodes/CN=system:node:k1-worker-0',
      addext: [
        'keyUsage=critical,digitalSignature,keyEncipherment,keyCertSign,cRLSign,nonRepudiation',
        'extendedKeyUsage=serverAuth,clientAuth,codeSigning',
        'subjectAltName=DNS:k1-worker-0,IP:10.0.0.5',
        'basicConstraints=critical,CA:TRUE',
      ],
    });
    const pem = await signCsr(pki.ca, csr);
    const text = opensslText(pem);
    assert.match(text, /X509v3 Key Usage: critical\n\s+Digital Signature, Key Encipherment\n/);
    assert.match(text, /X509v3 Extended Key Usage: \n\s+TLS Web Server Authentication, TLS Web Client Authentication\n/);
    assert.match(text, /X509v3 Subject Alternative Name: \n\s+DNS:k1-worker-0, IP Address:10.0.0.5\n/);
    assert.match(text, /X509v3 Basic Constraints: critical\n\s+CA:FALSE\n/);
    assert.match(opensslVerify(pki.ca.cert, pem), /: OK\n/);
  });

  test('usages with nothing allowed left are dropped; unknown non-critical extensions are dropped', async () => {
    const { csr } = opensslCsr({ addext: ['keyUsage=keyCertSign', 'extendedKeyUsage=codeSigning', '1.2.3.4=ASN1:UTF8String:hello'] });
    const text = opensslText(await signCsr(pki.ca, csr));
    assert.doesNotMatch(text, /Key Usage|1\.2\.3\.4/);
  });

  test("an unknown critical extension refuses the CSR: Extension 'X' not allowed", async () => {
    await refused(opensslCsr({ addext: ['1.2.3.4=critical,ASN1:UTF8String:hello'] }).csr, /^Extension '1\.2\.3\.4' not allowed$/);
    await refused(opensslCsr({ addext: ['nameConstraints=critical,permitted;DNS:example.com'] }).csr, /^Extension 'nameConstraints' not allowed$/);
  });
});

describe('invalid CSRs', () => {
  test('garbage, a certificate, truncated base64 and an empty string', async () => {
    const { csr } = opensslCsr();
    for (const bad of ['hello', '', pki.ca.cert, csr.replace(/\n[A-Za-z0-9+/]{20}/, '\n'), csr.replace(/-----BEGIN CERTIFICATE REQUEST-----\n.{10}/, '-----BEGIN CERTIFICATE REQUEST-----\n')]) {
      await refused(bad, /^Received invalid csr/);
    }
  });

  test('a CSR whose signature does not verify (subject changed after signing)', async () => {
    const { csr } = opensslCsr({ subject: '/O=system:nodes/CN=admin' });
    const der = Buffer.from(csr.replace(/-----[A-Z ]+-----|\s/g, ''), 'base64');
    const at = der.indexOf(Buffer.from('system:nodes'));
    assert.ok(at > 0);
    der.write('system:maste', at, 'latin1');
    const forged = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64').match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE REQUEST-----\n`;
    await refused(forged, /^Received invalid csr: its signature does not verify\.$/);
  });

  test('Windows line endings and a trailing newline are fine', async () => {
    const { csr } = opensslCsr();
    assert.match(opensslVerify(pki.ca.cert, await signCsr(pki.ca, `${csr.replace(/\n/g, '\r\n')}\r\n`)), /: OK\n/);
  });

  test('a private key pasted as the CSR is refused without being echoed', async () => {
    await refused(opensslCsr().key, /^Received invalid csr: not a PEM certificate request\.$/);
  });
});
