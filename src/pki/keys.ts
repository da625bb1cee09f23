// Key material for the cluster PKI: @peculiar/x509 on Node's WebCrypto, PEM in and out.
//
// Key algorithm: ECDSA P-256 for the three CAs and the service-account key. kubeadm loads existing
// CA keys of either type (ECDSA or RSA) from /etc/kubernetes/pki and signs its leaf certificates
// with them whatever its own `encryptionAlgorithm`; kube-apiserver and kube-controller-manager sign
// and verify service-account tokens with an ECDSA sa.key (ES256); kubectl and magnumclient only
// read the CA (client keys of any type are signed). RSA-2048 (kubeadm's default) costs 100+ ms per
// key on a small host and a cluster needs four on the create request's path (and again per CA
// rotation); P-256 costs about a millisecond, at a security level above RSA-2048's.
// Signing accepts CA keys of both types, so an RSA CA (imported or restored) still works.
// @peculiar/x509 needs the Reflect metadata polyfill loaded first (it comes with TypeORM too).
import 'reflect-metadata';
import { createPrivateKey, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto);

export { x509 };
export const subtle = webcrypto.subtle;
export type CryptoKeyPair = webcrypto.CryptoKeyPair;
export type CryptoKey = webcrypto.CryptoKey;
/** Node's WebCrypto types and the DOM ones @peculiar/x509 declares are the same objects at run time. */
export type X509KeyPair = Parameters<typeof x509.X509CertificateGenerator.createSelfSigned>[0]['keys'];
export type X509SigningKey = X509KeyPair['privateKey'];
export type X509SigningAlgorithm = NonNullable<Parameters<typeof x509.X509CertificateGenerator.create>[0]['signingAlgorithm']>;

/** The algorithm every key this service generates uses. */
export const KEY_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' } as const;

export async function generateKeyPair(): Promise<CryptoKeyPair> {
  return (await subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
}

export async function privateKeyPem(key: CryptoKey): Promise<string> {
  return x509.PemConverter.encode(await subtle.exportKey('pkcs8', key), 'PRIVATE KEY');
}

export async function publicKeyPem(key: CryptoKey): Promise<string> {
  return x509.PemConverter.encode(await subtle.exportKey('spki', key), 'PUBLIC KEY');
}

const CURVES: Record<string, string> = { prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521' };

/**
 * A PEM private key (PKCS#8, or the PKCS#1/SEC1 forms) as a WebCrypto signing key, SHA-256 for RSA.
 * Errors never quote the key.
 */
export async function importSigningKey(pem: string): Promise<CryptoKey> {
  let der: Buffer;
  let algorithm: webcrypto.EcKeyImportParams | webcrypto.RsaHashedImportParams;
  try {
    const key = createPrivateKey(pem);
    der = key.export({ type: 'pkcs8', format: 'der' });
    if (key.asymmetricKeyType === 'ec') {
      const curve = CURVES[key.asymmetricKeyDetails?.namedCurve ?? ''];
      if (!curve) throw new Error('unsupported curve');
      algorithm = { name: 'ECDSA', namedCurve: curve };
    } else if (key.asymmetricKeyType === 'rsa') {
      algorithm = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
    } else {
      throw new Error(`unsupported key type ${key.asymmetricKeyType}`);
    }
  } catch (e) {
    throw new Error(`CA key cannot be used for signing: ${(e as Error).message.split('\n')[0]}`);
  }
  return subtle.importKey('pkcs8', der, algorithm, false, ['sign']);
}

/** A PEM with no trailing newline (Magnum strips its PEM output). */
export const trimPem = (pem: string): string => pem.trim();
