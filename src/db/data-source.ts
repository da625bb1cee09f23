import { DataSource } from 'typeorm';
import { migrations } from '../../migrations/index.js';
import { ClusterEntity } from './entities/cluster.js';
import { ClusterTemplateEntity } from './entities/cluster-template.js';

export const entities = [ClusterTemplateEntity, ClusterEntity];

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
