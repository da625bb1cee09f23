// The simulated apiserver's certificates: a serving certificate signed by the cluster CA (as
// kubeadm signs apiserver.crt from /etc/kubernetes/pki/ca.key), client certificates checked
// against the CAs the control planes trust, and kubeadm's discovery hash of a CA.
import 'reflect-metadata';
import { createHash, createPrivateKey, randomBytes, webcrypto, X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import * as x509 from '@peculiar/x509';
import type { KeyPair } from './userdata.js';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

type X509Keys = Parameters<typeof x509.X509CertificateGenerator.createSelfSigned>[0]['keys'];
type SigningAlgorithm = NonNullable<Parameters<typeof x509.X509CertificateGenerator.create>[0]['signingAlgorithm']>;

const HOUR_MS = 3_600_000;
const CURVES: Record<string, string> = { prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521' };

/** `sha256:<hex>` of the CA certificate's SubjectPublicKeyInfo (kubeadm's discovery-token-ca-cert-hash). */
export function caCertHash(pem: string): string {
  let h = HASHES.get(pem);
  if (h === undefined) {
    const spki = new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' });
    h = `sha256:${createHash('sha256').update(spki).digest('hex')}`;
    if (HASHES.size >= 4096) HASHES.delete(HASHES.keys().next().value!);
    HASHES.set(pem, h);
  }
  return h;
}
/** Hashes by certificate: every listener sync and join attempt asks again. */
const HASHES = new Map<string, string>();

async function signingKey(pem: string): Promise<{ key: webcrypto.CryptoKey; algorithm: SigningAlgorithm }> {
  const k = createPrivateKey(pem);
  const der = k.export({ type: 'pkcs8', format: 'der' });
  if (k.asymmetricKeyType === 'ec') {
    const namedCurve = CURVES[k.asymmetricKeyDetails?.namedCurve ?? ''] ?? 'P-256';
    const key = await webcrypto.subtle.importKey('pkcs8', der, { name: 'ECDSA', namedCurve }, false, ['sign']);
    return { key, algorithm: { name: 'ECDSA', hash: 'SHA-256' } as SigningAlgorithm };
  }
  const key = await webcrypto.subtle.importKey('pkcs8', der, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['sign']);
  return { key, algorithm: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as SigningAlgorithm };
}

function caKeyId(caCert: x509.X509Certificate): x509.Extension[] {
  const ski = caCert.getExtension(x509.SubjectKeyIdentifierExtension);
  return ski ? [new x509.AuthorityKeyIdentifierExtension(ski.keyId)] : [];
}

/** A one-year kube-apiserver serving certificate for `names` (DNS names and IP addresses), signed by `ca`. */
export async function issueServingCert(ca: KeyPair, names: string[]): Promise<KeyPair> {
  const keys = (await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const caCert = new x509.X509Certificate(ca.cert);
  const signer = await signingKey(ca.key);
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomBytes(8).toString('hex').replace(/^[89a-f]/, '1'),
    subject: 'CN=kube-apiserver',
    issuer: caCert.subject,
    publicKey: keys.publicKey as unknown as X509Keys['publicKey'],
    signingKey: signer.key as unknown as X509Keys['privateKey'],
    signingAlgorithm: signer.algorithm,
    notBefore: new Date(now - HOUR_MS),
    notAfter: new Date(now + 365 * 24 * HOUR_MS),
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(names.map((n) => ({ type: isIP(n) ? ('ip' as const) : ('dns' as const), value: n }))),
      // Two CAs may share a subject (a rotation keeps the cluster's name): the key id tells clients which one signed.
      ...caKeyId(caCert),
    ],
  });
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { cert: cert.toString('pem'), key: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY') };
}

/** True when `peer` was issued by one of `trusted` and is within its validity period. */
export function issuedByAny(peer: X509Certificate, trusted: readonly X509Certificate[], now = Date.now()): boolean {
  return validAt(peer, now) && signedByAny(peer, trusted);
}

/** Whether `now` is within the certificate's validity period. */
export const validAt = (cert: X509Certificate, now: number): boolean => now >= Date.parse(cert.validFrom) && now <= Date.parse(cert.validTo);

/** True when `peer` was issued and signed by one of `trusted`. */
export function signedByAny(peer: X509Certificate, trusted: readonly X509Certificate[]): boolean {
  return trusted.some((ca) => {
    try {
      return peer.checkIssued(ca) && peer.verify(ca.publicKey);
    } catch {
      return false;
    }
  });
}

/** The user a client certificate names: CN is the user, each O a group (Kubernetes' x509 authenticator). */
export function userOf(subject: Record<string, string | string[] | undefined>): { name: string; groups: string[] } {
  const cn = subject.CN;
  const o = subject.O;
  return { name: (Array.isArray(cn) ? cn[0] : cn) ?? '', groups: o === undefined ? [] : Array.isArray(o) ? o : [o] };
}
