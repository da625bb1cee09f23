// Queries on cluster templates, scoped by who asks (spec §3.1 "Visibility").
import type { DataSource, EntityManager, SelectQueryBuilder } from 'typeorm';
import { ClusterEntity } from '../entities/cluster.js';
import { ClusterTemplateEntity, type ClusterTemplateRow } from '../entities/cluster-template.js';
import { orderAndPage, type Keyset } from './keyset.js';

/** Who is looking: everything (admin), or one project plus what is public. */
export type Visibility = { all: true } | { all: false; projectId: string | null; hiddenPublic: boolean };

export const SORTABLE = new Set(ClusterTemplateEntity.options.columns ? Object.keys(ClusterTemplateEntity.options.columns) : []);

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class ClusterTemplateRepo {
  /** `onWrite` runs after every committed write (read caches invalidate themselves there). */
  constructor(
    private readonly ds: DataSource,
    private readonly onWrite: () => void = () => undefined,
  ) {}

  private scoped(vis: Visibility): SelectQueryBuilder<ClusterTemplateRow> {
    const qb = this.ds.getRepository(ClusterTemplateEntity).createQueryBuilder('t');
    if (!vis.all) {
      qb.where(
        vis.hiddenPublic ? '(t.project_id = :p OR t.public)' : '(t.project_id = :p OR (t.public AND NOT t.hidden))',
        { p: vis.projectId ?? '' },
      );
    }
    return qb;
  }

  async list(vis: Visibility, page: Keyset, markerUuid: string | undefined): Promise<ClusterTemplateRow[] | 'bad-marker'> {
    let marker: ClusterTemplateRow | null = null;
    if (markerUuid) {
      // Only a template the caller may see (its project's, or a public one) is a page boundary.
      marker = await this.scoped(vis.all ? vis : { ...vis, hiddenPublic: true }).andWhere('t.uuid = :m', { m: markerUuid.toLowerCase() }).getOne();
      if (!marker) return 'bad-marker';
    }
    return orderAndPage(this.scoped(vis), 't', page, marker ?? undefined).getMany();
  }

  /** By UUID, whoever owns it (the template a cluster was made from). */
  byUuid(uuid: string, em: EntityManager = this.ds.manager): Promise<ClusterTemplateRow | null> {
    return em.getRepository(ClusterTemplateEntity).findOneBy({ uuid });
  }

  /** By UUID when the string is UUID-shaped, else by name; several rows with that name → 'ambiguous'. */
  async find(ident: string, vis: Visibility): Promise<ClusterTemplateRow | 'ambiguous' | null> {
    // By id or name, hidden public templates are visible too (spec §3.1).
    const qb = this.scoped(vis.all ? vis : { ...vis, hiddenPublic: true });
    if (UUID_SHAPE.test(ident)) return qb.andWhere('t.uuid = :u', { u: ident.toLowerCase() }).getOne();
    const rows = await qb.andWhere('t.name = :n', { n: ident }).take(2).getMany();
    if (rows.length > 1) return 'ambiguous';
    return rows[0] ?? null;
  }

  async insert(row: ClusterTemplateRow): Promise<ClusterTemplateRow> {
    const saved = await this.ds.getRepository(ClusterTemplateEntity).save(row);
    this.onWrite();
    return saved;
  }

  async update(row: ClusterTemplateRow): Promise<ClusterTemplateRow> {
    const saved = await this.ds.getRepository(ClusterTemplateEntity).save(row);
    this.onWrite();
    return saved;
  }

  async remove(id: number): Promise<void> {
    await this.ds.getRepository(ClusterTemplateEntity).delete({ id });
    this.onWrite();
  }

  async isReferenced(uuid: string): Promise<boolean> {
    return this.ds.getRepository(ClusterEntity).exists({ where: { cluster_template_id: uuid } });
  }
}
