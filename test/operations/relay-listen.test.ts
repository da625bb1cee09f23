// The relay's LISTEN connection (src/operations/outbox.ts) after PostgreSQL drops it, as a restart
// or a failover does: it comes back by itself, and an operation written by another process (another
// API, a worker's repair) is relayed on its NOTIFY, not only at the next sweep. The sweep is set to
// an hour here, so only the NOTIFY path can relay in time. Before, the relay's listener stayed dead
// after its connection was terminated.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { testApp, type TestApp } from '../support/app.js';

let t: TestApp;
before(async () => {
  t = await testApp({ config: (c) => { c.operationSweepMs = 3_600_000; } });
});
after(async () => {
  await t?.close();
});

/** Waits for the job of `id` to be on the queue; false after `ms`. */
async function queued(id: string, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if ((await t.services.queue.getJobState(id)) !== 'unknown') return true;
    await sleep(50);
  }
  return false;
}

test('after its LISTEN connection is terminated, the relay listens again and relays what another process wrote', async () => {
  const tpl = await t.as('demo', { method: 'POST', url: '/v1/clustertemplates', payload: { name: 'k8s', coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', master_lb_enabled: true } });
  assert.equal(tpl.statusCode, 201, tpl.body);
  const c = await t.as('demo', { method: 'POST', url: '/v1/clusters', payload: { cluster_template_id: tpl.json().uuid, name: 'c' } });
  assert.equal(c.statusCode, 202, c.body);
  const cluster = c.json().uuid as string;

  const other = new pg.Client({ connectionString: t.config.databaseUrl });
  await other.connect();
  try {
    // As a restart does to every connection: the listeners' backends end.
    const killed = await other.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %' AND pid <> pg_backend_pid()`);
    assert.ok((killed.rowCount ?? 0) >= 1, 'the listeners were found');
    await sleep(1500);
    // Another process writes an operation (a delete may join the create); its NOTIFY must wake this relay.
    const id = randomUUID();
    await other.query(`INSERT INTO operation (id, cluster_id, kind, params, state, attempts, created_at) VALUES ($1, $2, 'delete', '{}', 'pending', 0, now())`, [id, cluster]);
    assert.equal(await queued(id, 10_000), true, 'relayed on its NOTIFY, well before the hour-long sweep');
  } finally {
    await other.end();
  }
});
