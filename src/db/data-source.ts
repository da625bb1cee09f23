import { DataSource } from 'typeorm';
import { migrations } from '../../migrations/index.js';
import { ClusterEntity } from './entities/cluster.js';
import { ClusterCertificateEntity } from './entities/cluster-certificate.js';
import { ClusterEventEntity } from './entities/cluster-event.js';
import { ClusterResourceEntity } from './entities/cluster-resource.js';
import { ClusterTemplateEntity } from './entities/cluster-template.js';
import { NodeGroupEntity } from './entities/nodegroup.js';
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
];

/** The database answers (a readiness probe). */
export async function ping(ds: DataSource): Promise<void> {
  await ds.query('SELECT 1');
}

export function createDataSource(url: string, poolSize = 10): DataSource {
  return new DataSource({
    type: 'postgres',
    url,
    entities,
    migrations,
    synchronize: false,
    migrationsRun: false,
    logging: false,
    extra: { max: poolSize, application_name: 'magnum-ts' },
  });
}
