// Identifiers, random secrets and salted hashes used by the Keystone emulator.
import { randomBytes, randomUUID, scryptSync, timingSafeEqual } from 'node:crypto';

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

/** Salted scrypt hash, encoded as `scrypt$<salt>$<hash>`. */
export function hashSecret(secret: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(secret, salt, HASH_BYTES, SCRYPT_PARAMS);
  return `scrypt$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

export function verifySecret(secret: string, stored: string): boolean {
  const [scheme, saltB64, hashB64] = stored.split('$');
  if (scheme !== 'scrypt' || saltB64 === undefined || hashB64 === undefined) return false;
  const expected = Buffer.from(hashB64, 'base64url');
  const actual = scryptSync(secret, Buffer.from(saltB64, 'base64url'), expected.length, SCRYPT_PARAMS);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
