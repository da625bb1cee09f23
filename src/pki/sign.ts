// Signs a client's CSR with one of the cluster's CAs, with Magnum's semantics (spec §3.5): the
// subject is copied unchanged, only allowed extensions are carried over, and the result never
// is a CA.
import { ApiError, errors } from '../domain/errors.js';
import type { KeyPair } from '../bootstrap/join.js';
import { importSigningKey, trimPem, x509, type X509SigningAlgorithm, type X509SigningKey } from './keys.js';

/** Magnum's `[x509] term_of_validity`. */
export const DEFAULT_TERM_DAYS = 1825;
const DAY_MS = 86_400_000;

export interface SignOptions {
  /** Validity after `now`, in days (default 1825). */
  termDays?: number;
  now?: Date;
}

const OID = {
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  subjectKeyIdentifier: '2.5.29.14',
} as const;

/** Names for the error message of a refused critical extension; others are shown by OID. */
const NAMES: Record<string, string> = {
  '2.5.29.9': 'subjectDirectoryAttributes',
  '2.5.29.16': 'privateKeyUsagePeriod',
  '2.5.29.18': 'issuerAltName',
  '2.5.29.30': 'nameConstraints',
  '2.5.29.31': 'cRLDistributionPoints',
  '2.5.29.32': 'certificatePolicies',
  '2.5.29.33': 'policyMappings',
  '2.5.29.35': 'authorityKeyIdentifier',
  '2.5.29.36': 'policyConstraints',
  '2.5.29.46': 'freshestCRL',
  '2.5.29.54': 'inhibitAnyPolicy',
  '1.3.6.1.5.5.7.1.1': 'authorityInfoAccess',
  '1.3.6.1.5.5.7.1.24': 'TLSFeature',
};

const ALLOWED_KEY_USAGE = x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment;
const ALLOWED_EKU = new Set<string>([x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth]);
const PEM_CSR = /^-----BEGIN (NEW )?CERTIFICATE REQUEST-----([A-Za-z0-9+/=\s]+)-----END (NEW )?CERTIFICATE REQUEST-----$/;

/** Parses and checks a PEM CSR (any line endings): its signature must verify with its own key. */
export async function parseCsr(pem: string): Promise<x509.Pkcs10CertificateRequest> {
  const body = PEM_CSR.exec(pem.trim())?.[2]?.replace(/\s+/g, '');
  if (!body || !/^[A-Za-z0-9+/]+={0,2}$/.test(body)) throw errors.invalidCsr('not a PEM certificate request');
  let csr: x509.Pkcs10CertificateRequest;
  try {
    csr = new x509.Pkcs10CertificateRequest(Buffer.from(body, 'base64'));
    void csr.subjectName;
    void csr.extensions;
  } catch {
    throw errors.invalidCsr('it cannot be parsed');
  }
  let valid = false;
  try {
    valid = await csr.verify();
  } catch {
    valid = false;
  }
  if (!valid) throw errors.invalidCsr('its signature does not verify');
  return csr;
}

/**
 * The extensions the certificate gets from the CSR: keyUsage reduced to digitalSignature and
 * keyEncipherment, extendedKeyUsage to serverAuth and clientAuth, subjectAltName as is; the rest is
 * dropped, except that an unknown critical extension refuses the CSR.
 */
export function filterExtensions(requested: readonly x509.Extension[]): x509.Extension[] {
  const out: x509.Extension[] = [];
  const seen = new Set<string>();
  for (const ext of requested) {
    if (seen.has(ext.type)) throw errors.invalidCsr(`extension ${NAMES[ext.type] ?? ext.type} appears twice`);
    seen.add(ext.type);
    switch (ext.type) {
      case OID.keyUsage: {
        const usages = new x509.KeyUsagesExtension(ext.rawData).usages & ALLOWED_KEY_USAGE;
        if (usages) out.push(new x509.KeyUsagesExtension(usages, ext.critical));
        break;
      }
      case OID.extKeyUsage: {
        const usages = new x509.ExtendedKeyUsageExtension(ext.rawData).usages.filter((u) => typeof u === 'string' && ALLOWED_EKU.has(u));
        if (usages.length) out.push(new x509.ExtendedKeyUsageExtension(usages, ext.critical));
        break;
      }
      case OID.subjectAltName:
        out.push(ext);
        break;
      // Always replaced: CA:FALSE is forced, and the key identifier is computed from the key.
      case OID.basicConstraints:
      case OID.subjectKeyIdentifier:
        break;
      default:
        if (ext.critical) throw errors.extensionNotAllowed(NAMES[ext.type] ?? ext.type);
    }
  }
  return out;
}

/**
 * A certificate for the CSR's key and subject, issued by `ca` (issuer = the CA's subject), valid
 * from a day ago for `termDays`, SHA-256, random serial. The PEM has no trailing newline.
 */
export async function signCsr(ca: KeyPair, csrPem: string, opts: SignOptions = {}): Promise<string> {
  const csr = await parseCsr(csrPem);
  let extensions: x509.Extension[];
  try {
    extensions = filterExtensions(csr.extensions);
  } catch (e) {
    if (e instanceof ApiError) throw e;
    throw errors.invalidCsr('an extension cannot be parsed');
  }
  const caCert = new x509.X509Certificate(ca.cert);
  const signingKey = await importSigningKey(ca.key);
  const caKeyId = caCert.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId;
  const now = opts.now ?? new Date();
  const cert = await x509.X509CertificateGenerator.create({
    subject: csr.subjectName,
    issuer: caCert.subjectName,
    publicKey: csr.publicKey,
    signingKey: signingKey,
    signingAlgorithm: { name: signingKey.algorithm.name, hash: 'SHA-256' } as X509SigningAlgorithm,
    notBefore: new Date(now.getTime() - DAY_MS),
    notAfter: new Date(now.getTime() + (opts.termDays ?? DEFAULT_TERM_DAYS) * DAY_MS),
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      ...extensions,
      await x509.SubjectKeyIdentifierExtension.create(csr.publicKey),
      ...(caKeyId ? [new x509.AuthorityKeyIdentifierExtension(caKeyId)] : []),
    ],
  });
  return trimPem(cert.toString('pem'));
}
