// Plays the worker's last step for API suites that run without workers: the cluster's latest
// operation ends, its conditions turn True (or the failing one False), and status is derived.
import type { FastifyInstance } from 'fastify';
import { ClusterEntity } from '../../src/db/entities/cluster.js';
import { NodeGroupEntity } from '../../src/db/entities/nodegroup.js';
import { OperationEntity } from '../../src/db/entities/operation.js';
import { deriveStatus, type Conditions } from '../../src/domain/cluster-status.js';

export interface SettleOptions {
  state?: 'succeeded' | 'failed';
  error?: string | null;
  /** Set once the API load balancer exists (default https://203.0.113.10:6443 on success). */
  apiAddress?: string | null;
}

export async function settleCluster(app: FastifyInstance, uuid: string, opts: SettleOptions = {}): Promise<void> {
  const state = opts.state ?? 'succeeded';
  const ds = app.services.db;
  const op = await ds.getRepository(OperationEntity).findOneOrFail({ where: { cluster_id: uuid }, order: { created_at: 'DESC' } });
  await ds.getRepository(OperationEntity).update({ id: op.id }, { state, error: opts.error ?? null, finished_at: new Date() });
  const c = await ds.getRepository(ClusterEntity).findOneByOrFail({ uuid });
  const since = new Date().toISOString();
  const conditions: Conditions = Object.fromEntries(
    Object.keys(c.conditions).map((k) => [k, { status: 'True' as const, reason: 'Ready', message: 'ready', since }]),
  );
  const derived = deriveStatus({ ...op, state, error: opts.error ?? null }, conditions);
  await ds.getRepository(ClusterEntity).update(
    { uuid },
    {
      ...derived,
      conditions,
      ...(state === 'succeeded' ? { api_address: opts.apiAddress === undefined ? 'https://203.0.113.10:6443' : opts.apiAddress, coe_version: c.coe_version ?? c.labels.kube_tag ?? null } : {}),
    },
  );
  const ngStatus = `${op.kind === 'create' ? 'CREATE' : 'UPDATE'}_${state === 'succeeded' ? 'COMPLETE' : 'FAILED'}`;
  await ds.getRepository(NodeGroupEntity).update({ cluster_id: uuid }, { status: ngStatus, status_reason: opts.error ?? null });
}
