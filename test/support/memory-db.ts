// What a step reads and writes of the database, in memory, for step tests with no PostgreSQL
// (test/support/run-context.ts gives it to a run): the ledger with PgLedger's semantics, the rows a run reads and
// writes (template, cluster, node groups, operations, certificates), the repositories over them (ctx.repos) and the
// little of a data source the steps ask for (ctx.ds). Anything else a step asks for fails loudly, naming itself.
import type { DataSource } from 'typeorm';
import { ClusterCertificateEntity, type ClusterCertificateRow } from '../../src/db/entities/cluster-certificate.js';
import type { ClusterResourceRow } from '../../src/db/entities/cluster-resource.js';
import { ClusterTemplateEntity, type ClusterTemplateRow } from '../../src/db/entities/cluster-template.js';
import type { ClusterRow, RetiredCredential } from '../../src/db/entities/cluster.js';
import type { NodeGroupRow } from '../../src/db/entities/nodegroup.js';
import type { OperationRow } from '../../src/db/entities/operation.js';
import type { Repos } from '../../src/db/repos/index.js';
import type { Ledger, ResourceRecord } from '../../src/steps/ledger.js';
import type { NodeMaterialRow } from '../../src/db/entities/node-material.js';
import type { NodeMaterialRepo } from '../../src/db/repos/node-material.js';

/** The ledger of one cluster in memory, with PgLedger's semantics (a row recorded again is revived, keeping its name and step). */
export class MemoryLedger implements Ledger {
  readonly rows: ClusterResourceRow[] = [];
  private next = 1;

  constructor(readonly clusterId: string) {}

  async live(type?: string): Promise<ClusterResourceRow[]> {
    return this.rows.filter((r) => r.deleted_at === null && (type === undefined || r.type === type)).map((r) => ({ ...r }));
  }

  async record(r: ResourceRecord): Promise<void> {
    const row = this.rows.find((x) => x.service === r.service && x.type === r.type && x.cloud_id === r.cloudId);
    if (row) {
      row.deleted_at = null;
      return;
    }
    this.rows.push({ id: String(this.next++), cluster_id: this.clusterId, service: r.service, type: r.type, cloud_id: r.cloudId, name: r.name, step: r.step, created_at: new Date(), deleted_at: null });
  }

  async markDeleted(service: string, type: string, cloudId: string): Promise<void> {
    for (const r of this.rows) if (r.service === service && r.type === type && r.cloud_id === cloudId && r.deleted_at === null) r.deleted_at = new Date();
  }

  async markTypeDeleted(type: string): Promise<void> {
    for (const r of this.rows) if (r.type === type && r.deleted_at === null) r.deleted_at = new Date();
  }

  async dropDeleted(): Promise<void> {
    for (let i = this.rows.length - 1; i >= 0; i--) if (this.rows[i]!.deleted_at !== null) this.rows.splice(i, 1);
  }

  /** Forgets rows as if their record had never been written (a crash between the cloud's answer and the record). */
  forget(match: (r: ClusterResourceRow) => boolean): void {
    for (let i = this.rows.length - 1; i >= 0; i--) if (match(this.rows[i]!)) this.rows.splice(i, 1);
  }
}

/** The rows a run reads and writes: template, cluster, node groups, operations, certificates. */
export class MemoryDb {
  readonly templates = new Map<string, ClusterTemplateRow>();
  readonly clusters = new Map<string, ClusterRow>();
  readonly nodegroups: NodeGroupRow[] = [];
  readonly operations = new Map<string, OperationRow>();
  readonly certificates: ClusterCertificateRow[] = [];
  /** The nodes' one-time material, by token hash (what the worker mints and binds as it boots servers): the step cloud's, shared by its runs. */
  constructor(readonly nodeMaterial: Map<string, NodeMaterialRow> = new Map()) {}
}

/** The node material repository over memory: what the worker writes and what a node's first boot takes (once). */
export function memoryNodeMaterial(rows: Map<string, NodeMaterialRow>): Pick<NodeMaterialRepo, 'mint' | 'bind' | 'bindSeen' | 'take' | 'giveBack'> {
  return {
    async mint(row) {
      rows.set(row.token_hash, { ...row, server_id: null, used_at: null });
    },
    async bind(clusterId, serverName, serverId) {
      for (const m of rows.values()) if (m.cluster_id === clusterId && m.server_name === serverName && m.server_id === null && m.used_at === null) m.server_id = serverId;
    },
    async bindSeen(clusterId, servers) {
      for (const { name, id } of servers) await this.bind(clusterId, name, id);
    },
    async take(tokenHash, serverId, now) {
      const row = rows.get(tokenHash);
      if (!row) return { refused: 'unknown' };
      if (row.used_at) return { refused: 'used', row };
      if (row.expires_at <= now) return { refused: 'expired', row };
      if (row.server_id === null) return { refused: 'unbound', row };
      if (row.server_id !== serverId) return { refused: 'other-server', row };
      const taken = { ...row };
      Object.assign(row, { used_at: now, material: null });
      return { taken };
    },
    async giveBack(tokenHash, sealed, usedAt) {
      const row = rows.get(tokenHash);
      if (!row || row.used_at?.getTime() !== usedAt.getTime() || row.material !== null) return false;
      Object.assign(row, { used_at: null, material: sealed });
      return true;
    },
  };
}

const matches = (row: object, where: Record<string, unknown> = {}): boolean => Object.entries(where).every(([k, v]) => (row as Record<string, unknown>)[k] === v);

/** A stand-in that fails loudly when a step asks for something this memory does not keep. */
function only<T extends object>(what: string, impl: T): T {
  return new Proxy(impl, {
    get(target, key) {
      if (key in target || typeof key === 'symbol' || key === 'then') return (target as Record<string | symbol, unknown>)[key];
      throw new Error(`the in-memory run context has no ${what}.${String(key)}: add it to test/support/memory-db.ts`);
    },
  });
}

/** What ctx.ds is asked for by the steps: the cluster's certificates (src/pki/store.ts), its template, and transactions. */
export function memoryDataSource(db: MemoryDb): DataSource {
  const certs = only('certificate repository', {
    async insert(rows: ClusterCertificateRow | ClusterCertificateRow[]) {
      db.certificates.push(...(Array.isArray(rows) ? rows : [rows]).map((r) => ({ ...r })));
    },
    async find(opts: { where?: Record<string, unknown> } = {}) {
      return db.certificates.filter((r) => matches(r, opts.where)).map((r) => ({ ...r }));
    },
    async findOne(opts: { where?: Record<string, unknown> } = {}) {
      return db.certificates.find((r) => matches(r, opts.where)) ?? null;
    },
    async findBy(where: Record<string, unknown>) {
      return db.certificates.filter((r) => matches(r, where)).map((r) => ({ ...r }));
    },
    async findOneBy(where: Record<string, unknown>) {
      return db.certificates.find((r) => matches(r, where)) ?? null;
    },
  });
  // What the periodic passes read of a template (src/steps/cluster-view.ts: ClusterTemplateRepo.byUuid).
  const templates = only('template repository', {
    async findOneBy(where: Record<string, unknown>) {
      return [...db.templates.values()].find((t) => matches(t, where)) ?? null;
    },
  });
  const ds: Record<string, unknown> = {
    getRepository(entity: unknown) {
      if (entity === ClusterCertificateEntity) return certs;
      if (entity === ClusterTemplateEntity) return templates;
      throw new Error('the in-memory run context keeps no repository but the certificates\' and the templates\'');
    },
    async transaction(fn: (em: unknown) => Promise<unknown>) {
      return fn(ds);
    },
  };
  ds.manager = ds;
  return only('data source', ds) as unknown as DataSource;
}

/** The repositories (ctx.repos) over the memory: what the steps call of them, nothing more. */
export function memoryRepos(db: MemoryDb): Repos {
  const cluster = (uuid: string): ClusterRow => {
    const c = db.clusters.get(uuid);
    if (!c) throw new Error(`no cluster ${uuid} in memory`);
    return c;
  };
  return {
    templates: only('templates', {
      async byUuid(uuid: string) {
        return db.templates.get(uuid) ?? null;
      },
    }),
    clusters: only('clusters', {
      async nodegroups(ids: string[]) {
        return db.nodegroups.filter((g) => ids.includes(g.cluster_id)).map((g) => ({ ...g }));
      },
      async update(uuid: string, changes: Partial<ClusterRow>) {
        Object.assign(cluster(uuid), changes);
      },
      async retireCredential(uuid: string): Promise<RetiredCredential[] | undefined> {
        const c = cluster(uuid);
        if (!c.app_cred_id) return undefined;
        c.retired_app_creds = [...c.retired_app_creds, { id: c.app_cred_id, user_id: c.app_cred_user_id ?? c.user_id }];
        Object.assign(c, { app_cred_id: null, app_cred_secret: null, app_cred_user_id: null, updated_at: new Date() });
        return c.retired_app_creds;
      },
      async forgetRetired(uuid: string, id: string) {
        const c = cluster(uuid);
        c.retired_app_creds = c.retired_app_creds.filter((r) => r.id !== id);
      },
    }),
    nodegroups: only('nodegroups', {
      async updateByUuid(_em: unknown, uuid: string, changes: Partial<NodeGroupRow>) {
        for (const g of db.nodegroups) if (g.uuid === uuid) Object.assign(g, changes);
      },
      async remove(_em: unknown, uuid: string) {
        const i = db.nodegroups.findIndex((g) => g.uuid === uuid);
        if (i >= 0) db.nodegroups.splice(i, 1);
      },
    }),
    operations: only('operations', {
      async setParams(_em: unknown, id: string, params: OperationRow['params']) {
        const op = db.operations.get(id);
        if (op) op.params = params;
      },
    }),
    events: only('events', {}),
    nodeMaterial: only('nodeMaterial', memoryNodeMaterial(db.nodeMaterial)),
  } as unknown as Repos;
}
