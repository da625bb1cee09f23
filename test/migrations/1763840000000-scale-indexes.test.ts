// The indexes of migration 1763840000000 at a size where the planner chooses by cost: 20,000
// clusters in two projects (one with 1% of them, spread through the table) and three finished
// operations each. The queries that run on every list page, every status write and every relay
// sweep read through an index, never the whole table.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../../src/db/data-source.js';
import { freshDatabase, type TestDatabase } from '../support/db.js';

let db: TestDatabase;
let ds: DataSource;

before(async () => {
  db = await freshDatabase();
  ds = createDataSource(db.url, 2);
  await ds.initialize();
  // Fixtures: no triggers or foreign-key checks for 80,000 rows.
  await ds.transaction(async (em) => {
    await em.query(`SET LOCAL session_replication_role = replica`);
    await em.query(
      `INSERT INTO cluster (uuid, name, project_id, user_id, cluster_template_id, status)
       SELECT gen_random_uuid(), 'c' || i, CASE WHEN i % 100 = 0 THEN 'small' ELSE 'big' END, 'u', gen_random_uuid(), 'CREATE_COMPLETE'
       FROM generate_series(1, 20000) AS i`,
    );
    await em.query(
      `INSERT INTO operation (id, cluster_id, kind, params, state, attempts, created_at)
       SELECT gen_random_uuid(), c.uuid, k, '{}', 'succeeded', 1, now() - make_interval(secs => c.id * 3 + n)
       FROM cluster c CROSS JOIN (VALUES ('create', 1), ('resize', 2), ('upgrade', 3)) AS o(k, n)`,
    );
  });
  await ds.query('ANALYZE cluster');
  await ds.query('ANALYZE operation');
});
after(async () => {
  await ds?.destroy();
  await db?.drop();
});

/** The plan's node types and index names, flattened. */
async function plan(sql: string, params: unknown[] = []): Promise<string[]> {
  const [{ 'QUERY PLAN': doc }] = await ds.query(`EXPLAIN (FORMAT JSON) ${sql}`, params);
  const out: string[] = [];
  const walk = (n: Record<string, unknown>) => {
    out.push(`${n['Node Type']}${n['Index Name'] ? ` ${n['Index Name']}` : ''}${n['Relation Name'] ? ` on ${n['Relation Name']}` : ''}`);
    for (const c of (n.Plans as Record<string, unknown>[] | undefined) ?? []) walk(c);
  };
  walk((doc as { Plan: Record<string, unknown> }[])[0]!.Plan);
  return out;
}

test("a small project's deep page reads its own rows in order: no sort, no scan of the table", async () => {
  const [{ id }] = await ds.query(`SELECT id FROM cluster WHERE project_id = 'small' ORDER BY id OFFSET 150 LIMIT 1`);
  const p = await plan(`SELECT * FROM cluster c WHERE c.project_id = $1 AND c.id > $2 ORDER BY c.id ASC LIMIT 100`, ['small', id]);
  assert.ok(p.some((n) => n.includes('cluster_project_id_idx')), p.join(' > '));
  assert.ok(!p.some((n) => n.startsWith('Sort') || n.startsWith('Seq Scan')), p.join(' > '));
});

test("the cluster's latest operation (its status) through operation_cluster_idx", async () => {
  const [{ uuid }] = await ds.query(`SELECT uuid FROM cluster WHERE name = 'c12345'`);
  const p = await plan(
    `SELECT id FROM operation WHERE cluster_id = $1 ORDER BY (state IN ('pending', 'queued', 'running')) DESC, created_at DESC LIMIT 1`,
    [uuid],
  );
  assert.ok(p.some((n) => n.includes('operation_cluster_idx')), p.join(' > '));
  assert.ok(!p.some((n) => n === 'Seq Scan on operation'), p.join(' > '));
});

test("the relay's recovery pass reads the active operations only", async () => {
  const p = await plan(`SELECT id FROM operation WHERE state IN ('queued', 'running') ORDER BY created_at LIMIT 1000`);
  assert.ok(p.some((n) => n.includes('operation_active_idx')), p.join(' > '));
});
