// The resource ledger (src/steps/ledger.ts): what PgLedger does in PostgreSQL, and that the in-memory ledger the
// step tests use (test/support/run-context.ts) does the same — one contract, run against both: a record is
// written once (again: a no-op, keeping its name and step; a row marked deleted revived), rows live oldest first
// and by type, marked deleted one by one or by type, dropped once deleted, and every cluster's rows its own.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../../src/db/data-source.js';
import { PgLedger, type Ledger } from '../../src/steps/ledger.js';
import { freshDatabase, type TestDatabase } from '../support/db.js';
import { MemoryLedger } from '../support/memory-db.js';

function contract(name: string, make: (cluster: string) => Ledger): void {
  describe(name, () => {
    const rec = (cloudId: string, type = 'network', name: string | null = cloudId) => ({ service: 'network', type, cloudId, name, step: 'test' });
    const ids = async (l: Ledger, type?: string) => (await l.live(type)).map((r) => r.cloud_id);

    test('a record is written once, with what it says; recorded again it stays as it was', async () => {
      const l = make(randomUUID());
      await l.record(rec('n1', 'network', 'first'));
      await l.record({ ...rec('n1', 'network', 'second'), step: 'other' });
      const [row, ...more] = await l.live();
      assert.deepEqual(more, []);
      assert.deepEqual([row!.cluster_id, row!.service, row!.type, row!.cloud_id, row!.name, row!.step, row!.deleted_at], [l.clusterId, 'network', 'network', 'n1', 'first', 'test', null]);
      assert.ok(row!.created_at instanceof Date);
    });

    test('live rows oldest first, of one type when asked', async () => {
      const l = make(randomUUID());
      for (const [id, type] of [['a', 'network'], ['b', 'subnet'], ['c', 'network']] as const) await l.record(rec(id, type));
      assert.deepEqual(await ids(l), ['a', 'b', 'c']);
      assert.deepEqual(await ids(l, 'network'), ['a', 'c']);
      assert.deepEqual(await ids(l, 'router'), []);
    });

    test('marked deleted: no longer live; recorded again: revived; by type: every live one of it', async () => {
      const l = make(randomUUID());
      for (const id of ['a', 'b']) await l.record(rec(id));
      await l.record(rec('i', 'router_interface'));
      await l.markDeleted('network', 'network', 'a');
      await l.markDeleted('compute', 'network', 'b');
      assert.deepEqual(await ids(l), ['b', 'i'], 'only the service and type named');
      await l.record(rec('a'));
      assert.deepEqual(await ids(l, 'network'), ['a', 'b'], 'the resource is back: its row revived, in its place');
      await l.markTypeDeleted('network');
      assert.deepEqual(await ids(l), ['i']);
    });

    test('dropped once deleted; the live ones and another cluster\'s stay', async () => {
      const l = make(randomUUID());
      const other = make(randomUUID());
      await other.record(rec('x'));
      await other.markDeleted('network', 'network', 'x');
      for (const id of ['a', 'b']) await l.record(rec(id));
      await l.markDeleted('network', 'network', 'a');
      await l.dropDeleted();
      assert.deepEqual(await ids(l), ['b']);
      await l.record(rec('a'));
      assert.deepEqual(await ids(l), ['b', 'a'], 'a row dropped is gone: recorded again, it is new');
      await other.record(rec('x'));
      assert.deepEqual(await ids(other), ['x'], 'another cluster\'s deleted row was not dropped');
    });
  });
}

let db: TestDatabase;
let ds: DataSource;
before(async () => {
  db = await freshDatabase();
  ds = createDataSource(db.url, 2);
  await ds.initialize();
});
after(async () => {
  await ds?.destroy();
  await db?.drop();
});

contract('PgLedger (cluster_resource)', (cluster) => new PgLedger(ds, cluster));
contract('the step tests\' MemoryLedger', (cluster) => new MemoryLedger(cluster));
