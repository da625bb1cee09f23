// Keyset pagination after a marker row, ordering by (sort_key, id) as Magnum does, with
// PostgreSQL's NULL placement (last when ascending, first when descending).
import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';

export interface Keyset {
  sortKey: string; // a validated column name
  sortDir: 'asc' | 'desc';
  limit: number;
}

export function orderAndPage<T extends ObjectLiteral>(
  qb: SelectQueryBuilder<T>,
  alias: string,
  page: Keyset,
  markerRow: object | undefined,
): SelectQueryBuilder<T> {
  const col = `${alias}.${page.sortKey}`;
  const dir = page.sortDir === 'asc' ? 'ASC' : 'DESC';
  const marker = markerRow as Record<string, unknown> | undefined;
  if (marker) {
    const v = marker[page.sortKey];
    const id = marker.id;
    const after = page.sortDir === 'asc' ? '>' : '<';
    if (page.sortKey === 'id') {
      qb.andWhere(`${alias}.id ${after} :mid`, { mid: id });
    } else if (v === null || v === undefined) {
      // NULLs sort last ascending (only NULLs with a larger id follow) and first descending.
      qb.andWhere(
        page.sortDir === 'asc'
          ? `(${col} IS NULL AND ${alias}.id > :mid)`
          : `((${col} IS NULL AND ${alias}.id < :mid) OR ${col} IS NOT NULL)`,
        { mid: id },
      );
    } else {
      qb.andWhere(
        page.sortDir === 'asc'
          ? `(${col} > :mv OR (${col} = :mv AND ${alias}.id > :mid) OR ${col} IS NULL)`
          : `(${col} < :mv OR (${col} = :mv AND ${alias}.id < :mid))`,
        { mv: v, mid: id },
      );
    }
  }
  qb.orderBy(col, dir);
  if (page.sortKey !== 'id') qb.addOrderBy(`${alias}.id`, dir);
  return qb.take(page.limit);
}
