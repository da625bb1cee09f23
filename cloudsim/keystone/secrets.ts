// Identifiers, random secrets and salted hashes used by the Keystone emulator.
import { randomBytes, randomUUID, scrypt, scryptSync, timingSafeEqual } from 'node:crypto';

/** A Keystone-style id: uuid4 hex without dashes. */
export function newId(): string {
  return randomUUID().replace(/-/g, '');
}

/** An audit id as Keystone makes them: 16 random bytes, url-safe base64, no padding (22 chars). */
export function newAuditId(): string {
  return randomBytes(16).toString('base64url');
}

/** A generated application credential secret: 64 random bytes, url-safe base64, no padding. */
export function newAppCredSecret(): string {
  return randomBytes(64).toString('base64url');
}

/** An opaque, fernet-looking token id. */
export function newOpaqueToken(): string {
  return `gAAAAAB${randomBytes(120).toString('base64url')}`;
}

export function newRequestId(): string {
  return `req-${randomUUID()}`;
}

// Cheap scrypt parameters: this is a simulator, logins must stay fast in tests.
const SCRYPT_PARAMS = { N: 1024, r: 8, p: 1 } as const;
const HASH_BYTES = 32;

/** scrypt on libuv's thread pool: a login or a credential made does not hold the event loop (every service of the cloud). */
const scryptAsync = (secret: string, salt: Buffer, bytes: number): Promise<Buffer> =>
  new Promise((resolve, reject) => scrypt(secret, salt, bytes, SCRYPT_PARAMS, (e, key) => (e ? reject(e) : resolve(key))));
const encode = (salt: Buffer, hash: Buffer): string => `scrypt$${salt.toString('base64url')}$${hash.toString('base64url')}`;

/** Salted scrypt hash, encoded as `scrypt$<salt>$<hash>` (seeding and password changes, in step with the state). */
export function hashSecret(secret: string): string {
  const salt = randomBytes(16);
  return encode(salt, scryptSync(secret, salt, HASH_BYTES, SCRYPT_PARAMS));
}

/** hashSecret off the event loop (an application credential's secret). */
export async function hashSecretAsync(secret: string): Promise<string> {
  const salt = randomBytes(16);
  return encode(salt, await scryptAsync(secret, salt, HASH_BYTES));
}

export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const [scheme, saltB64, hashB64] = stored.split('$');
  if (scheme !== 'scrypt' || saltB64 === undefined || hashB64 === undefined) return false;
  const expected = Buffer.from(hashB64, 'base64url');
  const actual = await scryptAsync(secret, Buffer.from(saltB64, 'base64url'), expected.length);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
