// A fresh PostgreSQL database opened as the service opens it (src/db/data-source.ts), for tests of the
// repositories, the operations and the use cases that need no API: its data source, a sealing box, and
// settled clusters written straight into it (cluster-fixture.ts).
import type { FastifyInstance } from 'fastify';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../../src/db/data-source.js';
import { SecretBox } from '../../src/security/secret-box.js';
import { TEST_SECRET_KEY } from './app.js';
import { insertCluster, type InsertClusterOptions, type InsertedCluster } from './cluster-fixture.js';
import { freshDatabase, type TestDatabase } from './db.js';

export interface Db {
  ds: DataSource;
  secretBox: SecretBox;
  url: string;
  /** A settled cluster (CREATE_COMPLETE unless told) of user u-1 in project p-1 unless told. */
  cluster(opts?: Partial<InsertClusterOptions>): Promise<InsertedCluster>;
  close(): Promise<void>;
}

export async function openDb(poolSize = 4): Promise<Db> {
  const db: TestDatabase = await freshDatabase();
  const ds = createDataSource(db.url, poolSize);
  await ds.initialize();
  const secretBox = new SecretBox([Buffer.from(TEST_SECRET_KEY, 'base64')]);
  // insertCluster reads only app.services.db and app.services.secretBox.
  const app = { services: { db: ds, secretBox } } as unknown as FastifyInstance;
  return {
    ds,
    secretBox,
    url: db.url,
    cluster: (opts = {}) => insertCluster(app, { user: 'u-1', project: 'p-1', pki: false, nodegroups: true, ...opts }),
    async close() {
      await ds.destroy();
      await db.drop();
    },
  };
}
