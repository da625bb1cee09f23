// The template read cache (src/db/template-cache.ts) never serves what the database no longer holds: local writes
// invalidate at once, writes from anywhere else through PostgreSQL NOTIFY, and while the LISTEN
// connection is down the cache is bypassed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import type { ClusterTemplateRow } from '../../src/db/entities/cluster-template.js';
import type { ClusterTemplateRepo } from '../../src/db/repos/cluster-templates.js';
import { TemplateCache } from '../../src/db/template-cache.js';
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

describe('TemplateCache', () => {
  const row = { uuid: 'u', name: 'n' } as ClusterTemplateRow;
  const counting = () => {
    const repo = { finds: 0, async find() { this.finds++; return row; } };
    return repo as unknown as ClusterTemplateRepo & { finds: number };
  };

  test('rows by scope and ident: read once, then from the cache until invalidated; scopes apart', async () => {
    const c = new TemplateCache(() => true, { maxRows: 10, maxListBytes: 1000 });
    const repo = counting();
    const demo = { all: false as const, projectId: 'p', hiddenPublic: true };
    assert.equal(await c.find(repo, 'n', demo), row);
    assert.equal(await c.find(repo, 'n', demo), row);
    assert.equal(repo.finds, 1);
    await c.find(repo, 'n', { all: true });
    assert.equal(repo.finds, 2, 'another scope is another key');
    c.invalidate();
    await c.find(repo, 'n', demo);
    assert.equal(repo.finds, 3);
  });

  test('list pages rendered once; a bad marker is never cached; unusable means no cache at all', async () => {
    let usable = true;
    const c = new TemplateCache(() => usable, { maxRows: 10, maxListBytes: 1000 });
    let loads = 0;
    const load = async () => (loads++, [row]);
    const render = (rows: ClusterTemplateRow[]) => JSON.stringify(rows.map((r) => r.uuid));
    assert.equal(await c.listPage('k', load, render), '["u"]');
    assert.equal(await c.listPage('k', load, render), '["u"]');
    assert.equal(loads, 1);
    let bad = 0;
    const badLoad = async () => (bad++, 'bad-marker' as const);
    assert.equal(await c.listPage('b', badLoad, render), 'bad-marker');
    await c.listPage('b', badLoad, render);
    assert.equal(bad, 2);
    usable = false;
    await c.listPage('k', load, render);
    assert.equal(loads, 2, 'bypassed while its change feed is down');
  });

  test('keys: the scope’s and every page parameter’s', () => {
    assert.equal(TemplateCache.scopeKey({ all: true }), 'all');
    assert.equal(TemplateCache.scopeKey({ all: false, projectId: 'p', hiddenPublic: false }), 'p:p:');
    assert.equal(TemplateCache.scopeKey({ all: false, projectId: null, hiddenPublic: true }), 'p::h');
    const key = (over: object) => TemplateCache.pageKey({ flavor: 'template', detail: false, vis: { all: true }, host: 'h', page: { limit: 5, sortKey: 'id', sortDir: 'asc', ...over } });
    assert.equal(key({}), 'template|l|all|h|5||id|asc');
    assert.notEqual(key({ marker: 'm' }), key({}));
    assert.notEqual(key({ sortDir: 'desc' }), key({}));
  });
});
