// Join material derived from the cluster's PKI: the discovery CA hash, bootstrap tokens, PEM sanity checks.

import { createHash, createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';

export interface KeyPair {
  cert: string;
  key: string;
}

/** What control-plane nodes receive: every shared CA key pair plus the service-account key pair. */
export interface ControlPlanePki {
  ca: KeyPair;
  etcdCa: KeyPair;
  frontProxyCa: KeyPair;
  serviceAccount: { key: string; pub: string };
}

const TOKEN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;

/** `sha256:<hex>` of the CA certificate's DER SubjectPublicKeyInfo (kubeadm discovery-token-ca-cert-hash). */
export function caCertHash(caCertPem: string): string {
  const spki = new X509Certificate(caCertPem).publicKey.export({ type: 'spki', format: 'der' });
  return `sha256:${createHash('sha256').update(spki).digest('hex')}`;
}

export function assertBootstrapToken(token: string): void {
  if (!TOKEN.test(token)) throw new Error('bootstrap token must match [a-z0-9]{6}.[a-z0-9]{16}');
}

export function assertCertificate(pem: string, what: string): void {
  try {
    const c = new X509Certificate(pem);
    if (!c.ca) throw new Error('not a CA certificate');
  } catch (e) {
    throw new Error(`${what}: ${(e as Error).message}`);
  }
}

/** The key must be a private key whose public half matches the certificate. */
export function assertKeyPair(pair: KeyPair, what: string): void {
  assertCertificate(pair.cert, what);
  let ok = false;
  try {
    ok = new X509Certificate(pair.cert).checkPrivateKey(createPrivateKey(pair.key));
  } catch {
    ok = false;
  }
  if (!ok) throw new Error(`${what}: key does not match certificate`);
}

export function assertControlPlanePki(p: ControlPlanePki): void {
  assertKeyPair(p.ca, 'ca');
  assertKeyPair(p.etcdCa, 'etcd ca');
  assertKeyPair(p.frontProxyCa, 'front-proxy ca');
  const derived = createPublicKey(createPrivateKey(p.serviceAccount.key)).export({ type: 'spki', format: 'pem' });
  const given = createPublicKey(p.serviceAccount.pub).export({ type: 'spki', format: 'pem' });
  if (derived !== given) throw new Error('service account: public key does not match private key');
}
