// The template read cache never serves what the database no longer holds: local writes
// invalidate at once, writes from anywhere else through PostgreSQL NOTIFY, and while the LISTEN
// connection is down the cache is bypassed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { ReadCache } from '../../src/db/read-cache.js';
import { testApp, type TestApp } from '../support/app.js';
import { waitFor } from '../support/http.js';

let t: TestApp;
let sql: pg.Client;
before(async () => {
  t = await testApp();
  sql = new pg.Client({ connectionString: t.config.databaseUrl });
  await sql.connect();
});
after(async () => {
  await sql.end();
  await t.close();
});

const cache = () => t.app.services.templates.cache;
const show = async (ident: string) => (await t.as('demo', { method: 'GET', url: `/v1/clustertemplates/${ident}` })).json();
const list = async () => (await t.as('demo', { method: 'GET', url: '/v1/clustertemplates' })).json().clustertemplates as { name: string }[];

/** Polls `check` until it holds (at most 5 s). */
const eventually = async (check: () => Promise<boolean>, what: string): Promise<void> => {
  await waitFor(check, (ok) => ok, 5000).catch(() => assert.fail(`not within 5 s: ${what}`));
};

describe('template read cache', () => {
  test('repeated reads are served from the cache', async () => {
    const ct = (await t.as('demo', { method: 'POST', url: '/v1/clustertemplates', payload: { name: 'cached', coe: 'kubernetes', image_id: 'i' } })).json();
    // The insert's own NOTIFY arrives a moment later and empties the cache once more (harmless):
    // repeat until a read is answered from the cache.
    await eventually(async () => {
      const hits = cache().rows.hits;
      await show(ct.uuid);
      assert.equal((await show(ct.uuid)).name, 'cached');
      return cache().rows.hits > hits;
    }, 'a show is a cache hit');
    await eventually(async () => {
      const hits = cache().lists.hits;
      await list();
      await list();
      return cache().lists.hits > hits;
    }, 'a list is a cache hit');
  });

  test('a write through the API is visible to the very next read', async () => {
    const ct = (await t.as('demo', { method: 'POST', url: '/v1/clustertemplates', payload: { name: 'local', coe: 'kubernetes', image_id: 'i' } })).json();
    await show(ct.uuid);
    await list();
    const r = await t.as('demo', { method: 'PATCH', url: `/v1/clustertemplates/${ct.uuid}`, payload: [{ op: 'replace', path: '/name', value: 'local-2' }] });
    assert.equal(r.statusCode, 200);
    assert.equal((await show(ct.uuid)).name, 'local-2');
    assert.ok((await list()).some((c) => c.name === 'local-2'));
    await t.as('demo', { method: 'DELETE', url: `/v1/clustertemplates/${ct.uuid}` });
    assert.equal((await t.as('demo', { method: 'GET', url: `/v1/clustertemplates/${ct.uuid}` })).statusCode, 404);
  });

  test('a write from another process reaches the cache through NOTIFY', async () => {
    const ct = (await t.as('demo', { method: 'POST', url: '/v1/clustertemplates', payload: { name: 'remote', coe: 'kubernetes', image_id: 'i' } })).json();
    assert.equal((await show(ct.uuid)).name, 'remote');
    await sql.query(`UPDATE cluster_template SET name = 'remote-2' WHERE uuid = $1`, [ct.uuid]);
    await eventually(async () => (await show(ct.uuid)).name === 'remote-2', 'show sees the outside update');
    await eventually(async () => (await list()).some((c) => c.name === 'remote-2'), 'list sees the outside update');
  });

  test('while the LISTEN connection is down the cache is bypassed, then it comes back', async () => {
    const ct = (await t.as('demo', { method: 'POST', url: '/v1/clustertemplates', payload: { name: 'feed', coe: 'kubernetes', image_id: 'i' } })).json();
    await show(ct.uuid);
    const killed = await sql.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'magnum-ts-listen cluster_template_changed' AND datname = current_database()`,
    );
    assert.equal(killed.rowCount, 1);
    await eventually(async () => !cache().rows.usable(), 'the feed notices its connection died');
    // Outside writes now land while nothing could tell the cache: reads must still be exact.
    await sql.query(`UPDATE cluster_template SET name = 'feed-2' WHERE uuid = $1`, [ct.uuid]);
    assert.equal((await show(ct.uuid)).name, 'feed-2');
    await eventually(async () => cache().rows.usable(), 'the feed reconnects');
    await sql.query(`UPDATE cluster_template SET name = 'feed-3' WHERE uuid = $1`, [ct.uuid]);
    await eventually(async () => (await show(ct.uuid)).name === 'feed-3', 'notifications flow again');
  });
});

describe('ReadCache', () => {
  test('a value read before an invalidation is not stored', () => {
    const c = new ReadCache<string>(10, () => 1, () => true);
    const gen = c.generation;
    c.invalidate();
    c.set('k', 'stale', gen);
    assert.equal(c.get('k'), undefined);
    c.set('k', 'fresh', c.generation);
    assert.equal(c.get('k'), 'fresh');
  });

  test('weight-bounded, least recently used out first', () => {
    const c = new ReadCache<string>(10, (s) => s.length, () => true);
    c.set('a', 'xxxx', 0);
    c.set('b', 'xxxx', 0);
    c.get('a');
    c.set('c', 'xxxx', 0);
    assert.equal(c.get('b'), undefined);
    assert.equal(c.get('a'), 'xxxx');
    assert.equal(c.get('c'), 'xxxx');
    c.set('huge', 'x'.repeat(11), 0);
    assert.equal(c.get('huge'), undefined);
  });

  test('bypassed entirely when not usable', () => {
    let ok = true;
    const c = new ReadCache<string>(10, () => 1, () => ok);
    c.set('k', 'v', 0);
    ok = false;
    assert.equal(c.get('k'), undefined);
    c.set('j', 'v', 0);
    ok = true;
    assert.equal(c.get('j'), undefined);
  });
});
