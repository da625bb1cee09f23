// Offline pre-filter for Keystone JWS tokens (spec openstack-apis §1.4): signature and expiry
// only. Roles and revocation still come from Keystone.
import { importSPKI, jwtVerify, type CryptoKey } from 'jose';
import { ConfigError } from '../config.js';

const JWS_SHAPE = /^eyJ[\w-]*\.[\w-]+\.[\w-]+$/;

export class JwsVerifier {
  private keys: Promise<CryptoKey[]>;

  constructor(publicKeysPem: string[]) {
    this.keys = Promise.all(
      publicKeysPem.map((pem, i) =>
        importSPKI(pem, 'ES256').catch((e: Error) => {
          throw new ConfigError(`KEYSTONE_JWS_PUBLIC_KEYS: key ${i + 1} is not an ES256 SPKI PEM public key (${e.message})`);
        }),
      ),
    );
    // Surfaced by ready(); never an unhandled rejection.
    this.keys.catch(() => undefined);
  }

  /** Resolves once every key is imported; rejects with a ConfigError naming a bad key. */
  async ready(): Promise<void> {
    await this.keys;
  }

  /** True when some configured key verifies the token and it is not expired. */
  async verify(token: string): Promise<boolean> {
    if (!JWS_SHAPE.test(token)) return false;
    for (const key of await this.keys) {
      try {
        await jwtVerify(token, key, { algorithms: ['ES256'], clockTolerance: 5 });
        return true;
      } catch {
        // Keystone has no kid: try the next key.
      }
    }
    return false;
  }
}
