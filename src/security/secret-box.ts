// Seals secrets at rest (CA private keys, application-credential secrets) with AES-256-GCM under
// keys from configuration. The first key seals; every key opens, so keys can be rotated by
// prepending a new one. A sealed value names its key by a short fingerprint, never the key.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const VERSION = 'v1';

export class SecretBoxError extends Error {}

interface Key {
  id: string;
  bytes: Buffer;
}

/** Parses SECRET_KEYS: comma-separated base64 keys of 32 bytes each. */
export function parseSecretKeys(raw: string): Buffer[] {
  const keys = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => Buffer.from(s, 'base64'));
  if (keys.length === 0) throw new SecretBoxError('at least one key is needed');
  for (const k of keys) if (k.length !== 32) throw new SecretBoxError('each key must be 32 bytes, base64-encoded');
  return keys;
}

export class SecretBox {
  private readonly keys: Key[];

  constructor(keys: Buffer[]) {
    if (keys.length === 0) throw new SecretBoxError('at least one key is needed');
    this.keys = keys.map((bytes) => ({ id: createHash('sha256').update(bytes).digest('hex').slice(0, 8), bytes }));
  }

  /** `v1.<key id>.<iv>.<tag>.<ciphertext>`, base64url parts; `context` is bound as associated data. */
  seal(plaintext: string, context: string): string {
    const key = this.keys[0]!;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key.bytes, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const parts = [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url'));
    return [VERSION, key.id, ...parts].join('.');
  }

  /** The plaintext; throws when the value was not sealed by one of our keys for this `context`. */
  open(sealed: string, context: string): string {
    const [version, keyId, iv, tag, body] = sealed.split('.');
    if (version !== VERSION || !keyId || !iv || !tag || body === undefined) throw new SecretBoxError('not a sealed value');
    const key = this.keys.find((k) => k.id === keyId);
    if (!key) throw new SecretBoxError(`sealed with an unknown key ${keyId}`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key.bytes, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError('sealed value does not authenticate');
    }
  }
}
