// A cluster's PKI: the Kubernetes, etcd and front-proxy CAs and the service-account key pair,
// shaped as the bootstrap renderer consumes it (src/kube/pki.ts ControlPlanePki).
import type { ControlPlanePki, KeyPair } from '../bootstrap/join.js';
import { generateKeyPair, privateKeyPem, publicKeyPem, trimPem, x509, type X509KeyPair } from './keys.js';

export type { ControlPlanePki, KeyPair };

/** The three CAs, by the names the API (`ca_cert_type`) and the cluster_certificate table use. */
export type CaKind = 'kubernetes' | 'etcd' | 'front_proxy';
export const CA_KINDS: readonly CaKind[] = ['kubernetes', 'etcd', 'front_proxy'];

/** Where each CA lives in ControlPlanePki. */
export const PKI_FIELD = { kubernetes: 'ca', etcd: 'etcdCa', front_proxy: 'frontProxyCa' } as const satisfies Record<CaKind, keyof ControlPlanePki>;

const DAY_MS = 86_400_000;
export const CA_VALIDITY_DAYS = 3650;
/** X.520's upper bound for a common name; longer cluster names fall back to the UUID. */
const CN_MAX = 64;

/** Magnum's CA subject: CN = the cluster's name, or its UUID when it has none (or one too long for a CN). */
export function kubernetesCaName(cluster: { uuid: string; name: string | null }): string {
  const name = cluster.name?.trim();
  return name && name.length <= CN_MAX ? name : cluster.uuid;
}

const cn = (value: string): x509.Name => new x509.Name([{ '2.5.4.3': [value] }]);

/** A self-signed CA: CA:TRUE (critical), keyCertSign|cRLSign|digitalSignature (critical), SKI. */
export async function createCa(commonName: string, opts: { now?: Date; days?: number } = {}): Promise<KeyPair> {
  const now = opts.now ?? new Date();
  const keys = await generateKeyPair();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: cn(commonName),
    keys: keys,
    notBefore: new Date(now.getTime() - DAY_MS),
    notAfter: new Date(now.getTime() + (opts.days ?? CA_VALIDITY_DAYS) * DAY_MS),
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert: trimPem(cert.toString('pem')), key: trimPem(await privateKeyPem(keys.privateKey)) };
}

/** The key pair kube-apiserver signs service-account tokens with (sa.key / sa.pub). */
export async function createServiceAccountKey(): Promise<{ key: string; pub: string }> {
  const keys = await generateKeyPair();
  return { key: trimPem(await privateKeyPem(keys.privateKey)), pub: trimPem(await publicKeyPem(keys.publicKey)) };
}

/** Everything a new cluster needs before any user-data is rendered (bootstrap step 2). */
export async function generateClusterPki(cluster: { uuid: string; name: string | null }, opts: { now?: Date } = {}): Promise<ControlPlanePki> {
  const [ca, etcdCa, frontProxyCa, serviceAccount] = await Promise.all([
    createCa(kubernetesCaName(cluster), opts),
    createCa('etcd-ca', opts),
    createCa('front-proxy-ca', opts),
    createServiceAccountKey(),
  ]);
  return { ca, etcdCa, frontProxyCa, serviceAccount };
}
