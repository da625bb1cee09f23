// Manila v2 (catalog type `sharev2`), the part the delete needs: the shares a cluster's Manila CSI made, found by
// their metadata, and their deletion (202 → deleting → 404). Microversion 2.65 is sent (any 2.x server of the
// last years has it; the share fields used here exist from 2.0).
import { deleted } from './collection.js';
import { requestJson, toSearchParams, type Session } from './http.js';

export interface Share {
  id: string;
  name: string | null;
  status: string;
  size: number;
  share_proto: string;
  metadata: Record<string, string>;
}

export const MANILA_MICROVERSION = '2.65';
/** Manila's page size when a list gives no limit (osapi_max_limit default). */
const PAGE = 1000;

export class ManilaClient {
  private readonly session: Session;

  constructor(session: Session) {
    this.session = { ...session, headers: { ...session.headers, 'x-openstack-manila-api-version': MANILA_MICROVERSION } };
  }

  /** GET /shares/detail?metadata=..., paged by offset (Manila's shares list has no next links). */
  async listShares(filters: { metadata?: Record<string, string> } = {}): Promise<Share[]> {
    const out: Share[] = [];
    for (let offset = 0; ; offset += PAGE) {
      const query = toSearchParams({ ...(filters.metadata ? { metadata: JSON.stringify(filters.metadata) } : {}), limit: PAGE, offset });
      const { body } = await requestJson<{ shares: Share[] }>(this.session, { path: '/shares/detail', query, operation: 'shares.list' });
      out.push(...body.shares);
      if (body.shares.length < PAGE) return out;
    }
  }

  /** DELETE /shares/{id} (403 while not available or error); false when already gone. */
  deleteShare(id: string): Promise<boolean> {
    return deleted(() => requestJson(this.session, { method: 'DELETE', path: `/shares/${encodeURIComponent(id)}`, operation: 'shares.delete' }));
  }
}
