// What accepted operations hold of a project's cloud quotas (table quota_hold, one row per operation): the
// amounts their bills take, counted until their operations end (what they made then exists and is counted by
// the services) or until the hold expires (an operation lost). The check of a bill against the holds and the
// taking of its own are serialised per project by a transaction-scoped advisory lock.
import type { EntityManager } from 'typeorm';
import { ACTIVE_STATES } from '../../domain/operations.js';

export type Amounts = Record<string, number>;

/** Waits for the project's hold lock, held until the transaction ends (READ COMMITTED: then sees every hold committed before). */
export async function lockProjectHolds(em: EntityManager, projectId: string): Promise<void> {
  await em.query(`SELECT pg_advisory_xact_lock(hashtext('quota-hold:' || $1))`, [projectId]);
}

/** A live hold: what its bill takes, and what its cluster's ledger shows made since its operation began, by type. */
export interface LiveHold {
  amounts: Amounts;
  made: Amounts;
}

/** The project's live holds (their operation active, not expired), each with what its operation has made so far. */
export async function liveHolds(em: EntityManager, projectId: string, now = new Date()): Promise<LiveHold[]> {
  const rows: { amounts: Amounts; made: Amounts | null }[] = await em.query(
    `SELECT h.amounts,
            (SELECT jsonb_object_agg(x.type, x.n) FROM (
               SELECT r.type, count(*)::int AS n FROM cluster_resource r
                WHERE r.cluster_id = h.cluster_id AND r.created_at >= o.created_at GROUP BY r.type) x) AS made
       FROM quota_hold h JOIN operation o ON o.id = h.operation_id
      WHERE h.project_id = $1 AND o.state = ANY($2) AND h.expires_at > $3`,
    [projectId, [...ACTIVE_STATES], now],
  );
  return rows.map((r) => ({ amounts: r.amounts, made: r.made ?? {} }));
}

export interface NewHold {
  operationId: string;
  clusterId: string;
  projectId: string;
  amounts: Amounts;
  expiresAt: Date;
}

/** Writes a hold, and lets the project's lapsed ones go (their operation ended, or they expired). */
export async function insertHold(em: EntityManager, h: NewHold, now = new Date()): Promise<void> {
  await em.query(
    `DELETE FROM quota_hold h WHERE h.project_id = $1 AND (h.expires_at <= $2
       OR NOT EXISTS (SELECT 1 FROM operation o WHERE o.id = h.operation_id AND o.state = ANY($3)))`,
    [h.projectId, now, [...ACTIVE_STATES]],
  );
  await em.query('INSERT INTO quota_hold (operation_id, cluster_id, project_id, amounts, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)', [
    h.operationId,
    h.clusterId,
    h.projectId,
    JSON.stringify(h.amounts),
    now,
    h.expiresAt,
  ]);
}
