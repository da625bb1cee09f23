// Barbican v1 (catalog type `key-manager`), what a cluster's KMS key needs: store a secret with its payload, find
// secrets by name, delete one. The catalog URL is the service root; the API is under /v1. Secret ids are the last
// segment of their secret_ref.
import { deleted, versionPrefix } from './collection.js';
import { requestJson, type Session } from './http.js';

export interface SecretMeta {
  secret_ref: string;
  name: string | null;
  secret_type: string;
  algorithm: string | null;
  bit_length: number | null;
}

export interface SecretStore {
  name: string;
  secret_type: 'symmetric' | 'opaque';
  algorithm?: string;
  bit_length?: number;
  mode?: string;
  /** base64 of the bytes. */
  payload: string;
  payload_content_type: 'application/octet-stream';
  payload_content_encoding: 'base64';
}

/** The secret's uuid, from its reference. */
export const secretId = (ref: string): string => ref.replace(/\/+$/, '').split('/').pop()!;

export class BarbicanClient {
  private readonly v1: string;

  constructor(private readonly session: Session) {
    this.v1 = versionPrefix(session.baseUrl, 'v1');
  }

  /** POST /v1/secrets → 201 {secret_ref}. Not repeated after an ambiguous failure: list by name first. */
  async storeSecret(secret: SecretStore): Promise<string> {
    const res = await requestJson<{ secret_ref: string }>(this.session, { method: 'POST', path: `${this.v1}/secrets`, body: secret, operation: 'secrets.create' });
    return secretId(res.body.secret_ref);
  }

  /** GET /v1/secrets?name=, every page (Barbican pages by offset and says `next`). */
  async listSecrets(name: string): Promise<SecretMeta[]> {
    const out: SecretMeta[] = [];
    for (let offset = 0; ; ) {
      const { body } = await requestJson<{ secrets: SecretMeta[]; total: number; next?: string }>(this.session, {
        path: `${this.v1}/secrets`,
        query: { name, limit: 100, offset },
        operation: 'secrets.list',
      });
      out.push(...body.secrets);
      offset += body.secrets.length;
      if (!body.next || body.secrets.length === 0) return out;
    }
  }

  /** DELETE /v1/secrets/{id} → 204; false when already gone. */
  deleteSecret(id: string): Promise<boolean> {
    return deleted(() => requestJson(this.session, { method: 'DELETE', path: `${this.v1}/secrets/${encodeURIComponent(id)}`, operation: 'secrets.delete' }));
  }
}
