// Client certificates issued directly by a cluster CA (src/pki/client-cert.ts): the worker's short-lived
// system:masters identity, judged by openssl: signed by the CA, its subject, a client certificate that is
// no CA, backdated five minutes and valid for the minutes asked.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createCa } from '../../src/pki/ca.js';
import { issueClientCert } from '../../src/pki/client-cert.js';
import type { KeyPair } from '../../src/pki/ca.js';
import { opensslText, opensslVerify } from '../support/openssl.js';

let ca: KeyPair;
before(async () => {
  ca = await createCa('test-cluster');
});

test('signed by the CA, system:masters, clientAuth only, not a CA', async () => {
  const now = new Date();
  const c = await issueClientCert(ca, { commonName: 'magnum-ts', organizations: ['system:masters'], minutes: 30, now });
  assert.match(opensslVerify(ca.cert, c.cert), /OK/);
  const text = opensslText(c.cert);
  assert.match(text, /Subject: CN ?= ?magnum-ts, O ?= ?system:masters/);
  assert.match(text, /CA:FALSE/);
  assert.match(text, /TLS Web Client Authentication/);
  assert.doesNotMatch(text, /TLS Web Server Authentication/);
  assert.match(text, /Authority Key Identifier/);
  assert.equal(c.notAfter.getTime(), now.getTime() + 30 * 60_000);
  assert.match(c.key, /^-----BEGIN PRIVATE KEY-----[\s\S]+-----END PRIVATE KEY-----$/, 'PEM without a trailing newline');
});

test('valid from five minutes before now, 60 minutes by default', async () => {
  const now = new Date('2030-01-01T00:00:00Z');
  const c = await issueClientCert(ca, { commonName: 'x', now });
  const text = opensslText(c.cert);
  assert.match(text, /Not Before: Dec 31 23:55:00 2029 GMT/);
  assert.match(text, /Not After : Jan  1 01:00:00 2030 GMT/);
  assert.doesNotMatch(text, /O ?= ?/);
});
