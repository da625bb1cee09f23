// /v1/streams/*: Server-Sent Events driven by PostgreSQL NOTIFY. A change written by another
// connection (as a worker process writes) reaches the streams of two API apps on one database; the
// project scoping and policies of the GET routes hold; under the portal cookie the CSRF token may
// come in the query for these GET streams only.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { buildApp } from '../../src/api/app.js';
import { createServices, type Services } from '../../src/api/services.js';
import { insertCluster } from '../support/cluster-fixture.js';
import { testApp, type TestApp } from '../support/app.js';
import { createOperation } from '../../workers/cluster/create.js';

let t: TestApp;
let second: { app: FastifyInstance; services: Services; url: string };
let db: pg.Client;
let demoProject: string;
let otherProject: string;
let demoUser: string;

before(async () => {
  t = await testApp({ listen: true });
  // A second API process on the same database and Redis.
  const services = await createServices(t.config, { steps: createOperation.steps });
  const app = await buildApp(t.config, { services, logger: false });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  second = { app, services, url };
  db = new pg.Client({ connectionString: t.config.databaseUrl });
  await db.connect();
  const ks = t.keystone.state;
  demoProject = ks.findProjectByName('demo', 'default')!.id;
  otherProject = ks.findProjectByName('other', 'default')!.id;
  demoUser = ks.findUserByName('demo', 'default')!.id;
});
after(async () => {
  await db?.end();
  await second?.app.close();
  await second?.services.close();
  await t?.close();
});

interface SseEvent {
  event: string;
  id?: string;
  data: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Opens a stream; `next(pred)` waits for the next event matching pred. */
async function open(url: string, headers: Record<string, string>) {
  const ctrl = new AbortController();
  const res = await fetch(url, { headers, signal: ctrl.signal });
  const events: SseEvent[] = [];
  if (res.status === 200) {
    (async () => {
      const decoder = new TextDecoder();
      let buf = '';
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          buf += decoder.decode(chunk, { stream: true });
          let i;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            const e: Partial<SseEvent> = {};
            for (const line of block.split('\n')) {
              if (line.startsWith('event: ')) e.event = line.slice(7);
              else if (line.startsWith('id: ')) e.id = line.slice(4);
              else if (line.startsWith('data: ')) e.data = JSON.parse(line.slice(6));
            }
            if (!e.event) continue;
            events.push(e as SseEvent);
          }
        }
      } catch {
        // aborted
      }
    })();
  }
  let seen = 0;
  return {
    status: res.status,
    headers: res.headers,
    text: res.status === 200 ? '' : await res.text(),
    events,
    /** The next event (after the last one taken) that matches. */
    async next(pred: (e: SseEvent) => boolean, ms = 5000): Promise<SseEvent> {
      const end = Date.now() + ms;
      for (;;) {
        for (; seen < events.length; seen++) {
          if (pred(events[seen]!)) return events[seen++]!;
        }
        if (Date.now() > end) throw new Error(`no matching event in ${ms} ms; got ${JSON.stringify(events.map((e) => e.event))}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    close: () => ctrl.abort(),
  };
}

const auth = async (user: 'demo' | 'other' | 'demo-reader' | 'admin') => ({ 'x-auth-token': await t.token(user), accept: 'text/event-stream' });

test('the list stream: a snapshot, then every change of the project’s clusters from any writer, to every API process; other projects see none', async () => {
  const a = await open(`${t.apiUrl}/v1/streams/clusters`, await auth('demo'));
  const b = await open(`${second.url}/v1/streams/clusters`, await auth('demo'));
  const o = await open(`${t.apiUrl}/v1/streams/clusters`, await auth('other'));
  assert.equal(a.status, 200);
  assert.match(a.headers.get('content-type')!, /text\/event-stream/);
  assert.deepEqual((await a.next((e) => e.event === 'snapshot')).data.clusters, []);
  await b.next((e) => e.event === 'snapshot');
  await o.next((e) => e.event === 'snapshot');
  const { cluster } = await insertCluster(t.app, { user: demoUser, project: demoProject, name: 'live-one', nodegroups: true, status: 'CREATE_IN_PROGRESS', pki: false });
  for (const s of [a, b]) {
    const e = await s.next((x) => x.event === 'cluster' && x.data.uuid === cluster.uuid);
    assert.equal(e.data.name, 'live-one');
    assert.equal(e.data.node_count, 1);
    assert.equal(e.data.master_count, 1);
    assert.ok(e.data.conditions.network);
  }
  // A worker's write: another connection, straight to the row.
  await db.query(`UPDATE cluster SET status = 'CREATE_COMPLETE', conditions = jsonb_set(conditions, '{network,reason}', '"Ready"') WHERE uuid = $1`, [cluster.uuid]);
  for (const s of [a, b]) await s.next((x) => x.event === 'cluster' && x.data.uuid === cluster.uuid && x.data.status === 'CREATE_COMPLETE');
  await db.query(`UPDATE nodegroup SET node_count = 3 WHERE cluster_id = $1 AND role = 'worker'`, [cluster.uuid]);
  await a.next((x) => x.event === 'cluster' && x.data.node_count === 3);
  await db.query('DELETE FROM nodegroup WHERE cluster_id = $1', [cluster.uuid]);
  await db.query('DELETE FROM cluster WHERE uuid = $1', [cluster.uuid]);
  for (const s of [a, b]) await s.next((x) => x.event === 'deleted' && x.data.uuid === cluster.uuid);
  // Another project's stream heard nothing of it.
  const theirs = await insertCluster(t.app, { user: 'u', project: otherProject, name: 'theirs', pki: false });
  await o.next((x) => x.event === 'cluster' && x.data.uuid === theirs.cluster.uuid);
  assert.ok(!o.events.some((x) => x.data?.uuid === cluster.uuid), 'other never saw demo’s cluster');
  assert.ok(!a.events.some((x) => x.data?.uuid === theirs.cluster.uuid), 'demo never saw other’s cluster');
  for (const s of [a, b, o]) s.close();
});

test('the cluster stream: state, node groups and the event timeline, resumed after Last-Event-ID; 404 for another project', async () => {
  const { cluster } = await insertCluster(t.app, { user: demoUser, project: demoProject, name: 'watched', nodegroups: true, pki: false });
  await db.query(`INSERT INTO cluster_event (cluster_id, at, type, reason, message, severity) VALUES ($1, now(), 'network', 'Ready', 'network ready', 'info')`, [cluster.uuid]);
  const s = await open(`${t.apiUrl}/v1/streams/clusters/${cluster.uuid}`, await auth('demo-reader'));
  assert.equal(s.status, 200, s.text);
  const first = await s.next((e) => e.event === 'cluster');
  assert.deepEqual(first.data.nodegroups.map((g: { name: string }) => g.name).sort(), ['default-master', 'default-worker']);
  const ev = await s.next((e) => e.event === 'events');
  assert.equal(ev.data[0].reason, 'Ready');
  const lastId = ev.id!;
  await db.query(`UPDATE cluster SET conditions = jsonb_set(conditions, '{workers}', '{"status":"False","reason":"NoValidHost","message":"no host","since":"2026-01-01T00:00:00Z"}') WHERE uuid = $1`, [cluster.uuid]);
  const changed = await s.next((e) => e.event === 'cluster' && e.data.conditions.workers?.reason === 'NoValidHost');
  assert.equal(changed.data.conditions.workers.status, 'False');
  await db.query(`INSERT INTO cluster_event (cluster_id, at, type, reason, message, severity) VALUES ($1, now(), 'workers', 'NoValidHost', 'no host', 'error')`, [cluster.uuid]);
  const more = await s.next((e) => e.event === 'events');
  assert.equal(more.data.length, 1);
  assert.equal(more.data[0].reason, 'NoValidHost');
  s.close();
  // A reconnect with Last-Event-ID gets only what came after.
  const again = await open(`${t.apiUrl}/v1/streams/clusters/${cluster.uuid}`, { ...(await auth('demo')), 'last-event-id': lastId });
  const resumed = await again.next((e) => e.event === 'events');
  assert.deepEqual(resumed.data.map((x: { reason: string }) => x.reason), ['NoValidHost']);
  await db.query('DELETE FROM nodegroup WHERE cluster_id = $1', [cluster.uuid]);
  await db.query('DELETE FROM cluster WHERE uuid = $1', [cluster.uuid]);
  await again.next((e) => e.event === 'deleted');
  const stranger = await open(`${t.apiUrl}/v1/streams/clusters/watched`, await auth('other'));
  assert.equal(stranger.status, 404);
  const anonymous = await open(`${t.apiUrl}/v1/streams/clusters`, { accept: 'text/event-stream' });
  assert.equal(anonymous.status, 401);
});

test('under the portal cookie a stream takes its CSRF token and project from the query; a non-stream GET does not', async () => {
  const origin = t.apiUrl!;
  const form = await fetch(`${origin}/portal/login`);
  const pre = form.headers.getSetCookie()[0]!.split(';')[0]!;
  const login = await fetch(`${origin}/portal/login`, {
    method: 'POST',
    headers: { origin, 'content-type': 'application/json', cookie: pre, 'x-csrf-token': ((await form.json()) as { csrf_token: string }).csrf_token },
    body: JSON.stringify({ method: 'password', username: 'demo', password: 'demo-secret', user_domain: 'Default', project: 'demo' }),
  });
  assert.equal(login.status, 200);
  const cookie = login.headers.getSetCookie().find((c) => c.startsWith('magnum_session='))!.split(';')[0]!;
  const { csrf_token: csrf, default_project: project } = (await login.json()) as { csrf_token: string; default_project: string };
  const site = { cookie, 'sec-fetch-site': 'same-origin' };
  const ok = await open(`${origin}/v1/streams/clusters?csrf=${csrf}&project=${project}`, site);
  assert.equal(ok.status, 200, ok.text);
  await ok.next((e) => e.event === 'snapshot');
  ok.close();
  assert.equal((await open(`${origin}/v1/streams/clusters`, site)).status, 403, 'no CSRF token');
  assert.equal((await open(`${origin}/v1/streams/clusters?csrf=${csrf}`, { cookie, 'sec-fetch-site': 'cross-site' })).status, 403, 'cross-site');
  assert.equal((await fetch(`${origin}/v1/clusters?csrf=${csrf}`, { headers: site })).status, 403, 'the query token is for streams only');
});
