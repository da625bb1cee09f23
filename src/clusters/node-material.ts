// A node's first boot fetches its secrets (src/bootstrap/user-data/material.ts): with the one-time token its
// user-data carries and its own Nova id, it gets the material the worker sealed for it, once. A token that is
// unknown, used, expired or another server's gets nothing; the cluster's timeline says so (a used or foreign
// token is what a pod reading the metadata service, or anyone who copied the user-data, would present).
import { createHash } from 'node:crypto';
import type { ClusterEventRepo } from '../db/repos/events.js';
import type { MaterialRefusal, NodeMaterialRepo } from '../db/repos/node-material.js';
import { errors, type ApiError } from '../domain/errors.js';
import type { SecretBox } from '../security/secret-box.js';

export interface NodeMaterialDeps {
  nodeMaterial: Pick<NodeMaterialRepo, 'take' | 'giveBack'>;
  events: Pick<ClusterEventRepo, 'insert'>;
  secretBox: Pick<SecretBox, 'open'>;
}

export interface MaterialRequest {
  /** The bearer token of the request. */
  token: string | undefined;
  /** The server the node says it is (its Nova id, from the metadata service or cloud-init). */
  serverId: string | undefined;
  /** Where the request came from (the direct peer), for the timeline. */
  peer: string;
}

const REFUSED: Record<MaterialRefusal, () => ApiError> = {
  unknown: errors.nodeMaterialRefused,
  used: errors.nodeMaterialUsed,
  expired: errors.nodeMaterialExpired,
  unbound: errors.nodeMaterialUnbound,
  'other-server': errors.nodeMaterialOtherServer,
};

const WHY: Record<Exclude<MaterialRefusal, 'unknown' | 'unbound'>, string> = {
  used: 'its token was already used',
  expired: 'its token had expired',
  'other-server': 'the token is another server’s',
};

/** The material taken: its lines, and how to give the token back when they were never delivered. */
export interface TakenMaterial {
  lines: string;
  /** The answer never reached the node (its connection closed first): the token stands again for its server. */
  undelivered(): Promise<void>;
}

/** The material (`<mode> <path> <base64>` lines), taken once; else the error saying why not. */
export async function takeNodeMaterial(deps: NodeMaterialDeps, r: MaterialRequest, now = new Date()): Promise<TakenMaterial> {
  if (!r.token || !r.serverId || !/^[A-Za-z0-9_-]{32,128}$/.test(r.token) || !/^[0-9a-f-]{1,64}$/i.test(r.serverId)) throw errors.nodeMaterialRefused();
  const hash = createHash('sha256').update(r.token).digest('hex');
  const got = await deps.nodeMaterial.take(hash, r.serverId.toLowerCase(), now);
  if ('taken' in got) {
    const row = got.taken;
    const sealed = row.material ?? '';
    await deps.events.insert({ cluster_id: row.cluster_id, operation_id: null, at: now, type: 'control_plane', reason: 'NodeMaterialFetched', message: `Server ${row.server_name} fetched its secrets at first boot (its token is now spent).`, severity: 'info' });
    return {
      lines: deps.secretBox.open(sealed, `node-material:${hash}`),
      async undelivered() {
        if (!(await deps.nodeMaterial.giveBack(hash, sealed, row.used_at ?? now))) return;
        await deps.events.insert({ cluster_id: row.cluster_id, operation_id: null, at: new Date(), type: 'control_plane', reason: 'NodeMaterialUndelivered', message: `Server ${row.server_name}'s secrets never reached it (the connection closed before the answer was written): its token stands again, for that server alone, until it expires.`, severity: 'warning' });
      },
    };
  }
  const row = got.row;
  if (row && got.refused !== 'unbound') {
    const why = WHY[got.refused as keyof typeof WHY];
    await deps.events.insert({ cluster_id: row.cluster_id, operation_id: null, at: now, type: 'control_plane', reason: 'NodeMaterialRefused', message: `A fetch of server ${row.server_name}'s secrets was refused: ${why} (from ${r.peer}, claiming server ${r.serverId}).`, severity: 'warning' });
  }
  throw REFUSED[got.refused]();
}
