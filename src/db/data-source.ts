import { DataSource } from 'typeorm';
import { migrations } from '../../migrations/index.js';
import { ClusterEntity } from './entities/cluster.js';
import { ClusterCertificateEntity } from './entities/cluster-certificate.js';
import { ClusterEventEntity } from './entities/cluster-event.js';
import { ClusterResourceEntity } from './entities/cluster-resource.js';
import { ClusterTemplateEntity } from './entities/cluster-template.js';
import { NodeGroupEntity } from './entities/nodegroup.js';
import { NodeMaterialEntity } from './entities/node-material.js';
import { OperationEntity } from './entities/operation.js';
import { QuotaEntity } from './entities/quota.js';

export const entities = [
  ClusterTemplateEntity,
  ClusterEntity,
  NodeGroupEntity,
  ClusterCertificateEntity,
  QuotaEntity,
  OperationEntity,
  ClusterEventEntity,
  ClusterResourceEntity,
  NodeMaterialEntity,
];

/** The database answers (a readiness probe). */
export async function ping(ds: DataSource): Promise<void> {
  await ds.query('SELECT 1');
}

/** Bounds of the pool's connections (milliseconds; 0 = none). */
export interface DbTimeouts {
  /** Getting a connection (a new one, or a free one of a full pool). */
  connectTimeoutMs: number;
  /** One statement (PostgreSQL's statement_timeout). */
  statementTimeoutMs: number;
  /** A transaction left open without a statement (idle_in_transaction_session_timeout): its locks go with it. */
  idleInTransactionTimeoutMs: number;
}

export const DB_TIMEOUTS: DbTimeouts = { connectTimeoutMs: 10_000, statementTimeoutMs: 30_000, idleInTransactionTimeoutMs: 60_000 };

/** No statement timeout: migrations and their advisory lock may rightly take long. */
export const MIGRATION_TIMEOUTS: DbTimeouts = { ...DB_TIMEOUTS, statementTimeoutMs: 0 };

export function createDataSource(url: string, poolSize = 10, timeouts: DbTimeouts = DB_TIMEOUTS): DataSource {
  return new DataSource({
    type: 'postgres',
    url,
    entities,
    migrations,
    synchronize: false,
    migrationsRun: false,
    logging: false,
    extra: {
      max: poolSize,
      application_name: 'magnum-ts',
      connectionTimeoutMillis: timeouts.connectTimeoutMs,
      statement_timeout: timeouts.statementTimeoutMs,
      idle_in_transaction_session_timeout: timeouts.idleInTransactionTimeoutMs,
      // A peer gone without a word (a cut network) is noticed instead of waited on for ever.
      keepAlive: true,
    },
  });
}
