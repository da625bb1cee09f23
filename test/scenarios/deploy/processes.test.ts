// Several API and worker processes of the compiled code (`npm run build`) on one PostgreSQL and
// one Redis of the test's own (test/support/fleet): what issue 20 asks of "any number of API and
// worker processes": each worker its own row in `coe service list`, kept across a crash and
// restart; the template read cache of one API process follows another's writes (PostgreSQL
// NOTIFY), also after PostgreSQL restarts, during which the APIs answer 503, not 500; operations written by either API are relayed and run
// once although an API process dies right after answering, a worker dies mid-run and every job
// is delivered twice.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import { OPERATIONS_QUEUE } from '../../../src/operations/queue.js';
import { Fleet } from '../../support/fleet/index.js';

let fleet: Fleet;
before(async () => {
  fleet = await Fleet.start({
    apis: 2,
    workers: 3,
    timeScale: 0.01,
    apiEnv: { OPERATION_SWEEP_MS: '500' },
    workerEnv: { WORKER_LOCK_MS: '3000', WORKER_POLL_MS: '200', WORKER_CONCURRENCY: '4' },
  });
});
after(async () => {
  await fleet?.close();
});

const until = async <T>(what: string, probe: () => Promise<T | undefined | false>, ms = 60_000): Promise<T> => {
  const end = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

interface MService { id: number; host: string; binary: string; state: string; report_count: number; created_at: string }
const services = async (api = 0): Promise<MService[]> => {
  const r = await fleet.call(api, 'admin', 'GET', '/v1/mservices');
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.mservices as MService[];
};
const rows = (list: MService[]) => list.map((s) => `${s.id} ${s.host} ${s.binary} ${s.created_at} ${s.state}`).sort();

test("each worker process has its own row in coe service list, the same from either API; a killed worker started again has its row back; a stopped one's row goes", async () => {
  const list = await services(0);
  assert.deepEqual(list.map((s) => s.host).sort(), [hostname(), `${hostname()}#2`, `${hostname()}#3`].sort());
  assert.deepEqual(list.map((s) => s.id).sort(), [1, 2, 3]);
  assert.ok(list.every((s) => s.state === 'up' && s.binary === 'magnum-conductor'));
  assert.deepEqual(rows(await services(1)), rows(list));

  const victim = fleet.workers[1]!;
  await victim.kill();
  await victim.start();
  // The restarted process wrote its heartbeat before it was ready: no fourth row, the same three.
  const again = await services(1);
  assert.deepEqual(rows(again), rows(list), 'same ids, hosts and creation times, all up');

  const stopped = fleet.workers[2]!;
  assert.equal(await stopped.stop(), 'exit 0');
  assert.equal((await services(0)).length, 2);
  await stopped.start();
  assert.deepEqual((await services(0)).map((s) => s.id).sort(), [1, 2, 3]);
});

test("one API process's template cache follows the other's writes, also after PostgreSQL restarted", async () => {
  const created = await fleet.call(0, 'demo', 'POST', '/v1/clustertemplates', {
    name: 'shared', coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', flavor_id: 'm1.small', master_flavor_id: 'm1.medium', docker_volume_size: 10,
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const size = async (api: number) => (await fleet.call(api, 'demo', 'GET', '/v1/clustertemplates/shared')).body?.docker_volume_size as number | undefined;
  const listed = async (api: number) => ((await fleet.call(api, 'demo', 'GET', '/v1/clustertemplates')).body.clustertemplates as { name: string }[]).map((t) => t.name);
  // API 2 reads it twice (the second from its cache), and its list.
  assert.equal(await size(1), 10);
  assert.equal(await size(1), 10);
  assert.deepEqual(await listed(1), ['shared']);

  const patch = async (api: number, value: number) => {
    for (;;) {
      const r = await fleet.call(api, 'demo', 'PATCH', '/v1/clustertemplates/shared', [{ op: 'replace', path: '/docker_volume_size', value }]).catch(() => ({ status: 0, body: undefined }));
      if (r.status === 200) return;
      assert.ok(r.status === 0 || r.status >= 500, `PATCH: ${r.status} ${JSON.stringify(r.body)}`);
      await new Promise((res) => setTimeout(res, 200));
    }
  };
  await patch(0, 20);
  await until('API 2 to serve the size API 1 wrote', async () => (await size(1)) === 20, 10_000);

  // While PostgreSQL is down the API answers 503 with Retry-After, never a 500.
  const seen = new Map<number, number>();
  let retryAfter: string | null = null;
  let probing = true;
  const prober = (async () => {
    const token = await fleet.token('demo');
    while (probing) {
      const r = await fetch(`${fleet.apiUrl(1)}/v1/clusters`, { headers: { 'x-auth-token': token }, signal: AbortSignal.timeout(5000) }).catch(() => undefined);
      if (r) {
        seen.set(r.status, (seen.get(r.status) ?? 0) + 1);
        if (r.status === 503) retryAfter = r.headers.get('retry-after');
        await r.arrayBuffer();
      }
      await new Promise((res) => setTimeout(res, 50));
    }
  })();
  await fleet.pg.restart(1000, 'immediate');
  await until('API 2 to answer from the database again', async () => (await fleet.call(1, 'demo', 'GET', '/v1/clusters')).status === 200, 20_000);
  probing = false;
  await prober;
  assert.deepEqual([...seen.keys()].filter((k) => k !== 200 && k !== 503), [], `answers during the restart: ${JSON.stringify([...seen])}`);
  assert.ok(seen.has(503), `some answers came while it was down: ${JSON.stringify([...seen])}`);
  assert.equal(retryAfter, '2');
  // Written while API 2's change feed may still be reconnecting: it must not serve the old row.
  await patch(0, 30);
  await until('API 2 to serve the size written after the restart', async () => (await size(1)) === 30, 20_000);
  await until('API 2 answers from its cache again, with the new size', async () => (await size(1)) === 30 && (await size(1)) === 30, 5000);

  const del = await fleet.call(1, 'demo', 'DELETE', '/v1/clustertemplates/shared');
  assert.equal(del.status, 204, JSON.stringify(del.body));
  await until('API 1 to see it gone', async () => (await fleet.call(0, 'demo', 'GET', '/v1/clustertemplates/shared')).status === 404 && (await listed(0)).length === 0, 10_000);
});

test('creates through both API processes all run once: an API killed after answering, a worker killed mid-run, every job delivered twice', async () => {
  const projectId = await fleet.projectId('demo');
  let tpl = await fleet.call(0, 'demo', 'POST', '/v1/clustertemplates', {
    name: 'k8s', coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', flavor_id: 'm1.small', master_flavor_id: 'm1.medium',
    master_lb_enabled: true, floating_ip_enabled: true, labels: { kube_tag: 'v1.35.1' },
  });
  assert.equal(tpl.status, 201, JSON.stringify(tpl.body));
  const uuids: string[] = [];
  for (let i = 0; i < 6; i++) {
    const r = await fleet.call(i % 2, 'demo', 'POST', '/v1/clusters', { name: `multi-${i}`, cluster_template_id: 'k8s', master_count: 1, node_count: 1 });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    uuids.push(r.body.uuid as string);
  }
  // API 1 dies right after its answers: what it wrote is relayed by API 2.
  await fleet.apis[0]!.kill();

  // Every operation's job delivered twice: a second job for the same operation under another id.
  const db = new pg.Client({ connectionString: fleet.pg.url('magnum') });
  await db.connect();
  const ops = (await db.query(`SELECT id, cluster_id, kind FROM operation WHERE kind = 'create'`)).rows as { id: string; cluster_id: string; kind: string }[];
  assert.equal(ops.length, 6);
  const connection = new Redis(fleet.redis.url, { maxRetriesPerRequest: null });
  const queue = new Queue(OPERATIONS_QUEUE, { connection, prefix: fleet.queuePrefix });
  try {
    await queue.addBulk(ops.map((o) => ({ name: o.kind, data: { operationId: o.id, clusterId: o.cluster_id }, opts: { jobId: `${o.id}-again` } })));
    // A worker killed while runs are under way; started again shortly after.
    await new Promise((r) => setTimeout(r, 1500));
    await fleet.workers[0]!.kill();
    await fleet.apis[0]!.start();
    await fleet.workers[0]!.start();

    const statuses = await until('every cluster settled', async () => {
      const r = await fleet.call(1, 'demo', 'GET', '/v1/clusters');
      const list = (r.body.clusters as { uuid: string; status: string }[]).filter((c) => uuids.includes(c.uuid));
      return list.length === 6 && list.every((c) => !c.status.endsWith('_IN_PROGRESS')) && list.map((c) => c.status);
    }, 180_000);
    assert.deepEqual(statuses, Array(6).fill('CREATE_COMPLETE'));
    const states = (await db.query(`SELECT state, count(*)::int AS n FROM operation WHERE kind = 'create' GROUP BY state`)).rows;
    assert.deepEqual(states, [{ state: 'succeeded', n: 6 }]);
    const boots = await fleet.admin('GET', `/boots?project_id=${projectId}`);
    assert.deepEqual(boots.repeated, [], 'no node booted twice');
    assert.equal(boots.booted, 12);

    for (const [i, u] of uuids.entries()) assert.equal((await fleet.call(i % 2, 'demo', 'DELETE', `/v1/clusters/${u}`)).status, 204);
    await until('every cluster gone', async () => ((await fleet.call(0, 'demo', 'GET', '/v1/clusters')).body.clusters as unknown[]).length === 0, 120_000);
    const audit = await fleet.admin('GET', `/audit?project_id=${projectId}`);
    const left = audit.projects.flatMap((p: { resources: { service: string; type: string; name?: string }[] }) => p.resources)
      .filter((r: { service: string; type: string; name?: string }) => ['nova', 'neutron', 'octavia', 'cinder'].includes(r.service) && !(r.type === 'security_group' && r.name === 'default'));
    assert.deepEqual(left, []);
    assert.equal((await db.query('SELECT count(*)::int AS n FROM operation')).rows[0].n, 0);
  } finally {
    await queue.close();
    connection.disconnect();
    await db.end();
  }
  tpl = await fleet.call(1, 'demo', 'DELETE', '/v1/clustertemplates/k8s');
  assert.equal(tpl.status, 204);
});
