// Client certificates issued directly by a cluster CA (no CSR): the worker's own short-lived
// system:masters identity towards the cluster's Kubernetes API.
import type { KeyPair } from './ca.js';
import { generateKeyPair, importSigningKey, privateKeyPem, trimPem, x509, type X509KeyPair, type X509SigningAlgorithm, type X509SigningKey } from './keys.js';

const MINUTE_MS = 60_000;

export interface ClientCertOptions {
  commonName: string;
  organizations?: string[];
  /** Validity from now (default 60 minutes); backdated 5 minutes for clock skew. */
  minutes?: number;
  now?: Date;
}

export async function issueClientCert(ca: KeyPair, opts: ClientCertOptions): Promise<KeyPair & { notAfter: Date }> {
  const now = opts.now ?? new Date();
  const keys = await generateKeyPair();
  const caCert = new x509.X509Certificate(ca.cert);
  const signingKey = await importSigningKey(ca.key);
  const caKeyId = caCert.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId;
  const subject = new x509.Name([{ '2.5.4.3': [opts.commonName] }, ...(opts.organizations ?? []).map((o) => ({ '2.5.4.10': [o] }))]);
  const notAfter = new Date(now.getTime() + (opts.minutes ?? 60) * MINUTE_MS);
  const cert = await x509.X509CertificateGenerator.create({
    subject,
    issuer: caCert.subjectName,
    publicKey: keys.publicKey,
    signingKey: signingKey,
    signingAlgorithm: { name: signingKey.algorithm.name, hash: 'SHA-256' } as X509SigningAlgorithm,
    notBefore: new Date(now.getTime() - 5 * MINUTE_MS),
    notAfter,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
      ...(caKeyId ? [new x509.AuthorityKeyIdentifierExtension(caKeyId)] : []),
    ],
  });
  return { cert: trimPem(cert.toString('pem')), key: trimPem(await privateKeyPem(keys.privateKey)), notAfter };
}
