// The rest of what the worker asks of Nova (spec openstack-apis §2.7–§2.9), at NOVA_MICROVERSION:
// keypairs (per user, not per project), server groups (policy, rules; paged by offset) and the
// project's limits and quota usage, for the pre-flight checks (server_groups and
// server_group_members default to 10).
import type { components } from '../../openapi/openstack/nova.js';
import { deleted } from './collection.js';
import { requestJson, type Session } from './http.js';
import { computeSession, NOVA_MICROVERSION } from './nova.js';

type S = components['schemas'];

export type Keypair = S['Keypair'];
export type KeypairCreate = S['KeypairCreate'];
export type ServerGroup = S['ServerGroup'];
export type ServerGroupCreate = S['ServerGroupCreate'];
export type ComputeLimits = S['AbsoluteLimits'];
export type ComputeQuotaDetail = S['QuotaSetDetail'];

/** One zone of GET /os-availability-zone (hosts are only shown to admins, by /detail). */
export interface AvailabilityZone {
  zoneName: string;
  zoneState: { available: boolean };
}

/** Page size of the server group list (Nova's max_limit is 1000). */
const GROUP_PAGE = 500;
const MAX_GROUP_PAGES = 100;

export class NovaResourcesClient {
  private readonly session: Session;

  constructor(session: Session, microversion: string = NOVA_MICROVERSION) {
    this.session = computeSession(session, microversion);
  }

  /** GET /os-keypairs/{name}: the caller's own keypair only. */
  async getKeypair(name: string): Promise<Keypair> {
    const res = await requestJson<{ keypair: Keypair }>(this.session, { path: this.keypairPath(name), operation: 'keypairs.get' });
    return res.body.keypair;
  }

  /** GET /os-keypairs: the caller's keypairs (names and fingerprints; never a private key). */
  async listKeypairs(): Promise<Keypair[]> {
    const res = await requestJson<{ keypairs: { keypair: Keypair }[] }>(this.session, { path: '/os-keypairs', operation: 'keypairs.list' });
    return res.body.keypairs.map((k) => k.keypair);
  }

  /** POST /os-keypairs: imports a public key; 409 when the name is taken, 403 over quota. */
  async createKeypair(keypair: KeypairCreate): Promise<Keypair> {
    const res = await requestJson<{ keypair: Keypair }>(this.session, { method: 'POST', path: '/os-keypairs', body: { keypair }, operation: 'keypairs.create' });
    return res.body.keypair;
  }

  /** DELETE /os-keypairs/{name}; false when already gone. */
  deleteKeypair(name: string): Promise<boolean> {
    return deleted(() => requestJson(this.session, { method: 'DELETE', path: this.keypairPath(name), operation: 'keypairs.delete' }));
  }

  /** GET /os-availability-zone: the zones a server may ask for (any user). */
  async listAvailabilityZones(): Promise<AvailabilityZone[]> {
    const res = await requestJson<{ availabilityZoneInfo: AvailabilityZone[] }>(this.session, { path: '/os-availability-zone', operation: 'availability_zones.list' });
    return res.body.availabilityZoneInfo;
  }

  /** POST /os-server-groups: membership is set only by the `group` scheduler hint at server create. */
  async createServerGroup(group: ServerGroupCreate): Promise<ServerGroup> {
    const res = await requestJson<{ server_group: ServerGroup }>(this.session, { method: 'POST', path: '/os-server-groups', body: { server_group: group }, operation: 'server_groups.create' });
    return res.body.server_group;
  }

  async getServerGroup(id: string): Promise<ServerGroup> {
    const res = await requestJson<{ server_group: ServerGroup }>(this.session, { path: this.groupPath(id), operation: 'server_groups.get' });
    return res.body.server_group;
  }

  /**
   * Every server group of the project, `name` filtered here (Nova has no name filter). Paged by
   * offset until an empty page: a page shorter than asked may only mean a smaller max_limit.
   */
  async listServerGroups(filters: { name?: string } = {}): Promise<ServerGroup[]> {
    const groups: ServerGroup[] = [];
    for (let page = 0; page < MAX_GROUP_PAGES; page++) {
      const query = { limit: GROUP_PAGE, offset: groups.length };
      const { body } = await requestJson<{ server_groups: ServerGroup[] }>(this.session, { path: '/os-server-groups', query, operation: 'server_groups.list' });
      if (body.server_groups.length === 0) break;
      groups.push(...body.server_groups);
    }
    return filters.name === undefined ? groups : groups.filter((g) => g.name === filters.name);
  }

  deleteServerGroup(id: string): Promise<boolean> {
    return deleted(() => requestJson(this.session, { method: 'DELETE', path: this.groupPath(id), operation: 'server_groups.delete' }));
  }

  /** GET /limits: the caller's project limits (max*) and usage (total*Used); -1 = unlimited. */
  async limits(): Promise<ComputeLimits> {
    const res = await requestJson<{ limits: { absolute: ComputeLimits } }>(this.session, { path: '/limits', operation: 'limits.get' });
    return res.body.limits.absolute;
  }

  /** GET /os-quota-sets/{project}/detail: limit, in_use and reserved per resource. */
  async quotaDetail(projectId: string): Promise<ComputeQuotaDetail> {
    const res = await requestJson<{ quota_set: ComputeQuotaDetail }>(this.session, { path: `/os-quota-sets/${encodeURIComponent(projectId)}/detail`, operation: 'quota_sets.detail' });
    return res.body.quota_set;
  }

  private keypairPath(name: string): string {
    return `/os-keypairs/${encodeURIComponent(name)}`;
  }

  private groupPath(id: string): string {
    return `/os-server-groups/${encodeURIComponent(id)}`;
  }
}
