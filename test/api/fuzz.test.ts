// Fuzzing (issue 15): every operation of openapi/magnum-v1.json gets path parameters, query
// arguments and bodies built by fast-check from its own schemas (test/support/fuzz-requests.ts):
// clean ones that reach deep into the operation, and dirty ones wrong in one part (past every bound,
// __proto__ keys, NUL, lone surrogates, huge numbers, deep nesting, long strings, garbled headers),
// as a member, a reader, an admin and another project's member, against a fresh settled cluster of
// the simulated cloud. Each operation's run starts with fixed probes putting prototype names wherever
// a parser could follow them. Never a 5xx; a refused request, a read and a dry-run write nothing
// (every table's rows and their contents, the queue, the simulated cloud's audit are unchanged); the
// built-in prototypes keep their properties. The seed is FUZZ_SEED (`random` draws one; npm test's is
// fixed, so a run fails only for a change of the code), in the test's name and
// in a failure's message with the command that replays it (FUZZ_ONLY: one operation); FUZZ_RUNS
// random requests per operation (25 by default: about a minute on two busy cores); FUZZ_STATS prints
// each operation's statuses.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { BUILTIN_USERS } from '../../cloudsim/embedded.js';
import { ClusterEntity } from '../../src/db/entities/cluster.js';
import { ClusterTemplateEntity } from '../../src/db/entities/cluster-template.js';
import { passwordToken, testApp, type TestApp } from '../support/app.js';
import { insertCluster } from '../support/cluster-fixture.js';
import { FuzzRequests, type FuzzRequest, type Operation } from '../support/fuzz-requests.js';
import { insertNodegroup } from '../support/nodegroup-fixture.js';
import type { JsonSchema } from '../support/schema-arbitrary.js';
import { opensslCsr } from '../pki/openssl.js';

const doc = JSON.parse(readFileSync(new URL('../../openapi/magnum-v1.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, JsonSchema> };
};
const SEED = process.env.FUZZ_SEED === 'random' ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.FUZZ_SEED ?? 20261125);
if (!Number.isSafeInteger(SEED)) throw new Error('FUZZ_SEED must be an integer or random');
const RUNS = Number(process.env.FUZZ_RUNS ?? 25);

let t: TestApp;
const tokens: Record<string, string> = {};
let csr: string;
let target: string;
/** What the placeholders of a request stand for in this run. */
let fixture: Record<string, string> = {};
let made: { cluster: string; templates: string[] } | undefined;
let serial = 0;

before(async () => {
  t = await testApp({ cloud: true, listen: true });
  for (const user of ['demo', 'demo-reader', 'admin', 'other'] as const) {
    tokens[user] = await passwordToken(t.keystone, user, BUILTIN_USERS[user].password, BUILTIN_USERS[user].project);
  }
  csr = opensslCsr().csr;
  const upgrade = await t.as('admin', {
    method: 'POST',
    url: '/v1/clustertemplates',
    payload: { name: 'fuzz-target', coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', master_lb_enabled: true, public: true, labels: { kube_tag: 'v1.36.0' } },
  });
  assert.equal(upgrade.statusCode, 201, upgrade.body);
  target = upgrade.json().uuid;
});
after(() => t.close());

/** A fresh settled cluster of user demo (with its CAs when the operation needs them); the last one goes. */
async function freshFixture(pki: boolean): Promise<void> {
  const db = t.app.services.db;
  if (made) {
    await db.getRepository(ClusterEntity).delete({ uuid: made.cluster });
    // Unless a cluster the fuzz created uses them.
    for (const uuid of made.templates) await db.getRepository(ClusterTemplateEntity).delete({ uuid }).catch(() => undefined);
  }
  const ks = t.keystone.state;
  const { cluster, template } = await insertCluster(t.app, {
    user: ks.userId('demo'),
    project: ks.projectId('demo'),
    nodegroups: true,
    pki,
    template: { image_id: 'ubuntu-24.04', external_network_id: 'public', master_lb_enabled: true, labels: { kube_tag: 'v1.35.2' } },
  });
  // A template no cluster uses, which a PATCH or DELETE can change whole.
  const { id: _id, ...copy } = template;
  const spare = { ...copy, uuid: randomUUID(), name: `spare-${++serial}`, created_at: new Date() };
  await db.getRepository(ClusterTemplateEntity).insert(spare);
  made = { cluster: cluster.uuid, templates: [template.uuid, spare.uuid] };
  const groups = await t.app.services.clusters.nodegroups([cluster.uuid]);
  const worker = groups.find((g) => g.role === 'worker')!;
  const extra = await insertNodegroup(t, { cluster, template, worker, master: groups.find((g) => g.role === 'master')! });
  fixture = {
    'cluster.uuid': cluster.uuid,
    'cluster.name': cluster.name,
    'template.uuid': template.uuid,
    'template.name': template.name,
    'spare.uuid': spare.uuid,
    'spare.name': spare.name,
    'worker.uuid': worker.uuid,
    'worker.name': worker.name,
    'worker.id': String(worker.id),
    'extra.uuid': extra.uuid,
    'extra.name': extra.name,
    'project.demo': ks.projectId('demo'),
    'project.other': ks.projectId('other'),
    'target.uuid': target,
    csr,
  };
}

const PLACEHOLDER = /(?:@|%40)(cluster|template|spare|worker|extra|project|target|csr|name)(?:\.(uuid|name|id|demo|other))?/g;
/** The request with its placeholders replaced: encoded in the URL, JSON-escaped in the body. */
function resolve(r: FuzzRequest): FuzzRequest {
  const value = (what: string, part: string | undefined) => (what === 'name' ? `fz${++serial}` : fixture[part ? `${what}.${part}` : what] ?? what);
  return {
    ...r,
    url: r.url.replace(PLACEHOLDER, (_m, what: string, part?: string) => encodeURIComponent(value(what, part))),
    body: r.body?.replace(PLACEHOLDER, (_m, what: string, part?: string) => JSON.stringify(value(what, part)).slice(1, -1)),
  };
}

let tables: string[] | undefined;
/**
 * What may not change when a request is refused: every table's rows (how many, and a digest of
 * their contents, so that a refused PATCH that changed one column shows), the queue, the cloud.
 */
async function snapshot(): Promise<unknown> {
  const db = t.app.services.db;
  // Operations an accepted request wrote reach the queue through the relay, after its commit: let it finish first.
  await t.services.relay.kick();
  tables ??= ((await db.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`)) as { tablename: string }[]).map((x) => x.tablename);
  const rows = (await db.query(
    tables.map((x) => `SELECT '${x}' AS t, count(*)::int AS n, md5(coalesce(string_agg(r::text, '|' ORDER BY r::text), '')) AS digest FROM "${x}" r`).join(' UNION ALL '),
  )) as { t: string; n: number; digest: string }[];
  const jobs = await t.services.queue.getJobCounts();
  const audit = t.cloud!.sims.audit().projects.map((p) => [p.project_id, p.resources.map((r) => `${r.service}/${r.type}/${r.id}`)]);
  return { rows, jobs, audit };
}

/** The built-in prototypes a polluting write would reach, each property with its value (or accessors). */
const PROTOS: [string, object][] = [['Object', Object.prototype], ['Array', Array.prototype], ['Function', Function.prototype], ['String', String.prototype], ['Number', Number.prototype]];
type Props = Map<string | symbol, PropertyDescriptor>;
const prototypes = (): Props[] => PROTOS.map(([, proto]) => new Map(Reflect.ownKeys(proto).map((k) => [k, Object.getOwnPropertyDescriptor(proto, k)!])));
const PROTOTYPES = prototypes();
/** The first property of a built-in prototype added, removed or replaced since the test began, if any. */
function prototypeChange(): string | undefined {
  for (const [i, now] of prototypes().entries()) {
    const was = PROTOTYPES[i]!;
    for (const k of new Set([...was.keys(), ...now.keys()])) {
      const a = was.get(k);
      const b = now.get(k);
      if (!a || !b || a.value !== b.value || a.get !== b.get || a.set !== b.set || a.writable !== b.writable) return `${PROTOS[i]![0]}.prototype.${String(k)}`;
    }
  }
  return undefined;
}

async function send(r: FuzzRequest, stream: boolean): Promise<{ status: number; body: string }> {
  const headers: Record<string, string> = { 'x-auth-token': tokens[r.who]!, 'openstack-api-version': r.version };
  if (stream) {
    // Over a socket of its own: a stream that opens is closed as soon as its status is known.
    return new Promise((done, fail) => {
      const req = httpGet(`${t.apiUrl}${r.url}`, { headers, agent: false }, (res) => {
        if (res.statusCode === 200) {
          done({ status: 200, body: '' });
          req.destroy();
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => done({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      });
      req.on('error', (e) => (req.destroyed ? undefined : fail(e)));
    });
  }
  const res = await t.app.inject({
    method: r.method as 'GET',
    url: r.url,
    headers: r.body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    ...(r.body === undefined ? {} : { payload: r.body }),
  });
  return { status: res.statusCode, body: res.body };
}

const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([m, op]) => ({ method: m.toUpperCase(), path, op })));
/** FUZZ_ONLY="PATCH /v1/clusters/{ident}" replays one operation (with the seed a failure printed). */
const only = process.env.FUZZ_ONLY;

test(`fuzz: ${operations.length} operations, each its probes and ${RUNS} random requests, seed ${SEED}: never a 5xx, a refused request, a read or a dry-run writes nothing, no prototype changes`, async () => {
  const requests = new FuzzRequests(doc.components.schemas);
  let calls = 0;
  let expected = 0;
  let accepted = 0;
  for (const [i, { method, path, op }] of operations.entries()) {
    if (only && only !== `${method} ${path}`) continue;
    const statuses: Record<number, number> = {};
    // A read or a dry-run writes nothing whatever it answers.
    const writes = method !== 'GET' && !path.startsWith('/v1/dry-run/');
    const pki = path.includes('/certificates');
    const t0 = Date.now();
    const probes = requests.probes(method, path, op);
    expected += probes.length + RUNS;
    await freshFixture(pki);
    let first = true;
    /** The state before the next request; unknown (null) after an accepted one or a new fixture. */
    let state: unknown = null;
    await fc
      .assert(
        fc.asyncProperty(requests.of(method, path, op), async (generated) => {
          // A write may have changed the cluster (an operation started, a group gone): each gets a fresh one.
          if (writes && !first) {
            await freshFixture(pki);
            state = null;
          }
          first = false;
          calls++;
          const r = resolve(generated);
          const before = state ?? (await snapshot());
          const res = await send(r, path.startsWith('/v1/streams/'));
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
          const where = `${r.method} ${r.url.slice(0, 300)} as ${r.who} (${r.version}, dirty: ${r.dirt}), body ${String(r.body).slice(0, 300)}`;
          assert.ok(res.status < 500, `${where}: ${res.status} ${res.body.slice(0, 500)}`);
          const changed = prototypeChange();
          assert.equal(changed, undefined, `${where}: ${changed} changed`);
          if (res.status < 400) accepted++;
          if (res.status >= 400 || !writes) {
            assert.deepEqual(await snapshot(), before, `${where}: ${writes ? 'refused' : 'answered'} with ${res.status} but something was written`);
            state = before;
          } else state = null;
        }),
        { seed: SEED + i, numRuns: probes.length + RUNS, examples: probes.map((p): [FuzzRequest] => [p]), endOnFailure: true },
      )
      .catch((e: Error) => {
        const cause = (e as { cause?: unknown }).cause;
        throw new Error(
          `Replay with FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS} FUZZ_ONLY="${method} ${path}" (its seed ${SEED + i}): ${e.message}${cause instanceof Error ? `\nCause: ${cause.message}` : ''}`,
        );
      });
    if (process.env.FUZZ_STATS) console.log(`${Date.now() - t0} ms`, method, path, JSON.stringify(statuses));
  }
  assert.ok(expected > 0, `no operation is ${only}`);
  assert.equal(calls, expected);
  // The clean half must reach the operations, not only their validation: most would be refused otherwise too.
  if (!only) assert.ok(accepted > calls / 5, `only ${accepted} of ${calls} requests accepted`);
});
