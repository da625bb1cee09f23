// Neutron v2.0, networks (spec openstack-apis §3.1, §3.4): show one, list with exact-match
// filters (a repeated filter is an OR), following `networks_links` next.
import { requestJson, toSearchParams, type Session } from './http.js';
import { collectPages } from './paging.js';

export interface NeutronNetwork {
  id: string;
  name: string;
  project_id: string;
  tenant_id: string;
  status: string;
  admin_state_up: boolean;
  shared: boolean;
  'router:external': boolean;
  subnets: string[];
  mtu?: number;
  description?: string;
  tags?: string[];
  port_security_enabled?: boolean;
  availability_zones?: string[];
  created_at?: string;
  updated_at?: string;
  revision_number?: number;
}

export interface NetworkFilters {
  id?: string | string[];
  name?: string | string[];
  'router:external'?: boolean;
  shared?: boolean;
  project_id?: string;
  status?: string;
  /** Page size asked of Neutron (without it Neutron returns everything unpaged). */
  limit?: number;
}

interface Link {
  rel: string;
  href: string;
}

interface NetworkList {
  networks: NeutronNetwork[];
  networks_links?: Link[];
}

export class NeutronClient {
  private readonly v2: string;

  constructor(private readonly session: Session) {
    // Catalog URLs are unversioned (http://h:9696); tolerate one ending in /v2.0.
    this.v2 = /\/v2\.0$/.test(session.baseUrl) ? '' : '/v2.0';
  }

  /** GET /v2.0/networks/{id}: 404 (OpenStackError not_found) when missing or not visible. */
  async getNetwork(id: string): Promise<NeutronNetwork> {
    const res = await requestJson<{ network: NeutronNetwork }>(this.session, { path: `${this.v2}/networks/${encodeURIComponent(id)}` });
    return res.body.network;
  }

  /** GET /v2.0/networks with filters, following `next` links through every page. */
  async listNetworks(filters: NetworkFilters = {}): Promise<NeutronNetwork[]> {
    const first = toSearchParams({ ...filters });
    return collectPages(this.session.service, first, async (query) => {
      const { body } = await requestJson<NetworkList>(this.session, { path: `${this.v2}/networks`, query });
      return { items: body.networks, next: body.networks_links?.find((l) => l.rel === 'next')?.href };
    });
  }
}
