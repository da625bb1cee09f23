// The nodes' one-time material (src/bootstrap/user-data/material.ts): minted by the worker as it boots a server,
// bound to the server's Nova id once known, taken once by that server's first boot. Taking is one statement:
// of two fetches with the same token, one gets the material and the other nothing.
import type { DataSource } from 'typeorm';
import { NodeMaterialEntity, type NodeMaterialRow } from '../entities/node-material.js';
import { returnedRows } from '../returning.js';

/** Why a token gives nothing: unknown, already used, expired, not yet bound to a server, or bound to another. */
export type MaterialRefusal = 'unknown' | 'used' | 'expired' | 'unbound' | 'other-server';

export class NodeMaterialRepo {
  constructor(private readonly ds: DataSource) {}

  /** A new token's row; the cluster's rows that can no longer be used and are a day old go. */
  async mint(row: Omit<NodeMaterialRow, 'used_at' | 'server_id'>): Promise<void> {
    await this.ds.transaction(async (em) => {
      await em.query(`DELETE FROM node_material WHERE cluster_id = $1 AND greatest(expires_at, coalesce(used_at, expires_at)) < $2::timestamptz - interval '1 day'`, [row.cluster_id, row.created_at]);
      await em.getRepository(NodeMaterialEntity).insert({ ...row, server_id: null, used_at: null });
    });
  }

  /** The server the worker made for `serverName`: its unused tokens are now its alone. */
  async bind(clusterId: string, serverName: string, serverId: string): Promise<void> {
    await this.ds.query('UPDATE node_material SET server_id = $3 WHERE cluster_id = $1 AND server_name = $2 AND server_id IS NULL AND used_at IS NULL', [clusterId, serverName, serverId]);
  }

  /**
   * The cluster's servers as Nova lists them (by the cluster's tag), each by its name: the unused tokens minted for
   * that name are now its alone. A server whose create answer was lost is found by a later listing, not always
   * by its own ensure again (it is no longer planned once it exists): this binds it there. One statement.
   */
  async bindSeen(clusterId: string, servers: readonly { name: string; id: string }[]): Promise<void> {
    if (servers.length === 0) return;
    await this.ds.query(
      `UPDATE node_material n SET server_id = v.id FROM unnest($2::text[], $3::text[]) AS v(name, id)
        WHERE n.cluster_id = $1 AND n.server_name = v.name AND n.server_id IS NULL AND n.used_at IS NULL`,
      [clusterId, servers.map((x) => x.name), servers.map((x) => x.id)],
    );
  }

  /**
   * A taken token made whole again: the answer carrying its material never reached the node (the connection closed
   * before it was written: the node's curl gave up, and will ask again). Only the take it undoes (the same used_at).
   */
  async giveBack(tokenHash: string, sealed: string, usedAt: Date): Promise<boolean> {
    const rows = await this.ds.query('UPDATE node_material SET used_at = NULL, material = $2 WHERE token_hash = $1 AND used_at = $3 AND material IS NULL RETURNING token_hash', [tokenHash, sealed, usedAt]);
    return returnedRows(rows).length > 0;
  }

  /** The sealed material of `tokenHash` for `serverId`, taken (never again); else why not, with the row it names. */
  async take(tokenHash: string, serverId: string, now: Date): Promise<{ taken: NodeMaterialRow } | { refused: MaterialRefusal; row?: NodeMaterialRow }> {
    const taken: NodeMaterialRow[] = await this.ds.query(
      `UPDATE node_material n SET used_at = $3, material = NULL
         FROM (SELECT token_hash, material FROM node_material WHERE token_hash = $1 FOR UPDATE) old
        WHERE n.token_hash = old.token_hash AND n.used_at IS NULL AND n.expires_at > $3 AND n.server_id = $2
        RETURNING n.token_hash, n.cluster_id, n.server_name, n.server_id, old.material, n.expires_at, n.used_at, n.created_at`,
      [tokenHash, serverId, now],
    ).then((r: unknown) => returnedRows<NodeMaterialRow>(r));
    if (taken[0]) return { taken: taken[0] };
    const row = await this.ds.getRepository(NodeMaterialEntity).findOneBy({ token_hash: tokenHash });
    if (!row) return { refused: 'unknown' };
    if (row.used_at) return { refused: 'used', row };
    if (row.expires_at <= now) return { refused: 'expired', row };
    if (row.server_id === null) return { refused: 'unbound', row };
    return { refused: 'other-server', row };
  }
}
