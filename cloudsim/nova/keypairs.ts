// Nova keypairs (spec openstack-apis §2.7): per user, an OpenSSH public key (or an x509
// certificate) with its fingerprint. Before 2.92 Nova generates an RSA key when none is given and
// returns the private half once.
import { createHash, createPublicKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { SimError } from '../common/errors.js';

export interface Keypair {
  /** Nova's integer id. */
  id: number;
  name: string;
  userId: string;
  /** The project of the token that created it (for the audit; Nova keypairs belong to users). */
  projectId: string;
  type: 'ssh' | 'x509';
  publicKey: string;
  fingerprint: string;
  createdAt: number;
}

const INVALID = 'Keypair data is invalid: failed to generate fingerprint';

const SSH_TYPES = [
  'ssh-rsa',
  'ssh-dss',
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'sk-ecdsa-sha2-nistp256@openssh.com',
  'sk-ssh-ed25519@openssh.com',
];

const colonHex = (digest: Buffer): string => [...digest].map((b) => b.toString(16).padStart(2, '0')).join(':');

/** An SSH wire-format string: uint32 length, then the bytes. */
const sshString = (b: Buffer): Buffer => {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(b.length);
  return Buffer.concat([len, b]);
};

/** An SSH mpint from unsigned big-endian bytes (a leading zero when the high bit is set). */
const mpint = (b: Buffer): Buffer => {
  let i = 0;
  while (i < b.length - 1 && b[i] === 0) i++;
  const trimmed = b.subarray(i);
  return sshString(trimmed[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
};

/** The fingerprint of an OpenSSH public key line (MD5 of the key blob), or a 400 when it is not one. */
export function sshFingerprint(publicKey: string): string {
  const [type, data] = publicKey.trim().split(/\s+/);
  if (!type || !data || !SSH_TYPES.includes(type) || !/^[A-Za-z0-9+/]+={0,2}$/.test(data)) throw new SimError(400, INVALID);
  const blob = Buffer.from(data, 'base64');
  if (blob.length < 4) throw new SimError(400, INVALID);
  const len = blob.readUInt32BE(0);
  if (blob.subarray(4, 4 + len).toString('latin1') !== type || blob.length <= 4 + len) throw new SimError(400, INVALID);
  return colonHex(createHash('md5').update(blob).digest());
}

/** The fingerprint of a PEM certificate (SHA-1 of its DER), or a 400. */
export function x509Fingerprint(pem: string): string {
  try {
    return colonHex(createHash('sha1').update(new X509Certificate(pem).raw).digest());
  } catch {
    throw new SimError(400, INVALID);
  }
}

/** A fresh RSA key as Nova makes it: the OpenSSH public line and the PEM private key. */
export function generateSshKey(): { publicKey: string; privateKey: string; fingerprint: string } {
  const { privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
  const blob = Buffer.concat([
    sshString(Buffer.from('ssh-rsa')),
    mpint(Buffer.from(jwk.e!, 'base64url')),
    mpint(Buffer.from(jwk.n!, 'base64url')),
  ]);
  return {
    publicKey: `ssh-rsa ${blob.toString('base64')} Generated-by-Nova`,
    privateKey,
    fingerprint: colonHex(createHash('md5').update(blob).digest()),
  };
}

/** Keypair names: before 2.92 letters, digits, '_', '-' and spaces; from 2.92 also '@' and '.'. */
export const validKeypairName = (name: string, allowAtDot: boolean): boolean =>
  (allowAtDot ? /^[a-zA-Z0-9 _\-@.]+$/ : /^[a-zA-Z0-9 _-]+$/).test(name);
