// Issue 26 item 5: an accepted operation holds what its bill takes of the project's quotas until what it makes
// exists. Creates one after the other or all at once get exactly what fits accepted, the rest Magnum's 403 naming
// the quota; the holds are PostgreSQL's (another API process sees them) and lapse when their operation ends, is
// deleted, or is lost; what an operation has made leaves its hold as the ledger records it.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '../../src/api/app.js';
import { createServices } from '../../src/api/services.js';
import { ClusterEntity } from '../../src/db/entities/cluster.js';
import { heldNow, holdLifetimeMs, stillHeld } from '../../src/preflight/holds.js';
import { createOperation } from '../../workers/cluster/create.js';
import { startWorker } from '../../workers/main.js';
import { testApp, type TestApp } from '../support/app.js';

describe('what a hold still takes', () => {
  test('a server made releases its instance and its share of the cores and RAM; a count type one for one; the rest stays', () => {
    const amounts = { instances: 4, cores: 6, ram: 8192, port: 5, security_group: 2, security_group_rule: 12, volumes: 2, gigabytes: 40 };
    assert.deepEqual(stillHeld({ amounts, made: {} }), amounts);
    assert.deepEqual(stillHeld({ amounts, made: { server: 2, port: 9, security_group: 1, volume: 2 } }), { instances: 2, cores: 3, ram: 4096, port: 0, security_group: 1, security_group_rule: 6, volumes: 0, gigabytes: 0 });
    assert.deepEqual(heldNow([{ amounts: { instances: 2 }, made: {} }, { amounts: { instances: 2, floatingip: 1 }, made: { server: 1 } }]), { instances: 3, floatingip: 1 });
  });

  test('a hold outlives its acceptance by twice the create_timeout, an hour at least', () => {
    assert.equal(holdLifetimeMs(60), 2 * 3600_000);
    assert.equal(holdLifetimeMs(10), 2 * 3600_000);
    assert.equal(holdLifetimeMs(180), 6 * 3600_000);
  });
});

describe('through the API (no worker: what is accepted stays accepted)', () => {
  let t: TestApp;
  const templates: Record<string, string> = {};
  const projects: Record<string, string> = {};
  before(async () => {
    t = await testApp({ cloud: true, config: (c) => { c.maxClustersPerProject = 100; c.openstack.timeoutMs = 60_000; } }); // fifty creates at once on a loaded machine: no pre-check times out
    for (const user of ['demo', 'other'] as const) {
      projects[user] = t.keystone.state.findProjectByName(user, 'default')!.id;
      const r = await t.as(user, {
        method: 'POST',
        url: '/v1/clustertemplates',
        payload: { name: 'k8s', coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', flavor_id: 'm1.small', master_flavor_id: 'm1.small', labels: { kube_tag: 'v1.35.1' } },
      });
      assert.equal(r.statusCode, 201, r.body);
      templates[user] = r.json().uuid;
    }
  });
  after(() => t.close());
  // Each test starts with nothing held: what the one before accepted has ended.
  beforeEach(() => t.app.services.db.query("UPDATE operation SET state = 'succeeded', finished_at = now() WHERE state IN ('pending', 'queued', 'running')"));

  const create = (user: 'demo' | 'other', name: string) => t.as(user, { method: 'POST', url: '/v1/clusters', payload: { cluster_template_id: templates[user], name, master_count: 1, node_count: 1 } });
  /** Room for `n` clusters of one control plane and one worker (m1.small: 1 vCPU): 2n instances. */
  const room = (user: 'demo' | 'other', n: number) => t.cloud!.nova.setQuota(projects[user]!, { instances: 2 * n, cores: 100, ram: 1_000_000 });
  const refusedForInstances = (body: string) => {
    const e = JSON.parse(body).errors[0];
    assert.equal(e.status, 403);
    assert.match(e.detail, /^Resource limit exceeded: the project's quotas leave too little for this request; instances: needed 2, in use 0, held by accepted operations \d+, limit \d+\. /);
  };

  test('six creates one after the other where three fit: three 202s, then the 403 naming the quota; nothing written for them', async () => {
    room('demo', 3);
    try {
      const codes: number[] = [];
      for (let i = 0; i < 6; i++) {
        const r = await create('demo', `seq-${i}`);
        codes.push(r.statusCode);
        if (i >= 3) refusedForInstances(r.body);
      }
      assert.deepEqual(codes, [202, 202, 202, 403, 403, 403]);
      assert.equal(await t.app.services.db.getRepository(ClusterEntity).countBy({ project_id: projects.demo!, name: 'seq-3' }), 0);
      // The dry-run says why: what is held counts.
      const dry = await t.as('demo', { method: 'POST', url: '/v1/dry-run/clusters', payload: { cluster_template_id: templates.demo, master_count: 1, node_count: 1 } });
      assert.equal(dry.statusCode, 200, dry.body);
      const line = dry.json().bill.find((l: { quota: string }) => l.quota === 'instances');
      assert.deepEqual([line.needed, line.in_use, line.held, line.limit, line.short], [2, 0, 6, 6, true]);
      assert.equal(dry.json().accepted, false);
    } finally {
      t.cloud!.nova.quotas.delete(projects.demo!);
    }
  });

  test('50 creates at once from two tenants: exactly what fits is accepted in each project, the rest refused naming the quota', async () => {
    // Instances bind first (a project's 10 security groups would leave room for five).
    room('demo', 4);
    room('other', 3);
    try {
      const all = await Promise.all(Array.from({ length: 50 }, (_, i) => create(i % 2 === 0 ? 'demo' : 'other', `burst-${i}`).then((r) => ({ user: i % 2 === 0 ? 'demo' : 'other', r }))));
      for (const user of ['demo', 'other'] as const) {
        const mine = all.filter((x) => x.user === user);
        const accepted = mine.filter((x) => x.r.statusCode === 202);
        assert.equal(accepted.length, user === "demo" ? 4 : 3, `${user}: ${[...new Set(mine.map((x) => x.r.statusCode === 202 ? 202 : JSON.parse(x.r.body).errors[0].detail))].join("\n")}`);
        for (const x of mine) if (x.r.statusCode !== 202) refusedForInstances(x.r.body);
        const rows = await t.app.services.db.getRepository(ClusterEntity).find({ where: { project_id: projects[user]! } });
        assert.equal(rows.filter((c) => c.name.startsWith('burst-')).length, accepted.length, 'a refused create writes no cluster');
      }
    } finally {
      t.cloud!.nova.quotas.delete(projects.demo!);
      t.cloud!.nova.quotas.delete(projects.other!);
    }
  });

  test('holds are PostgreSQL\'s: another API process over the same database refuses what no longer fits', async () => {
    room('demo', 1);
    const services = await createServices(t.config, { steps: createOperation.steps });
    const other = await buildApp(t.config, { services, logger: false });
    try {
      assert.equal((await create('demo', 'first')).statusCode, 202);
      const r = await other.inject({
        method: 'POST',
        url: '/v1/clusters',
        headers: { 'openstack-api-version': 'container-infra latest', 'x-auth-token': await t.token('demo') },
        payload: { cluster_template_id: templates.demo, name: 'second', master_count: 1, node_count: 1 },
      });
      assert.equal(r.statusCode, 403, r.body);
      refusedForInstances(r.body);
    } finally {
      await other.close();
      await services.close();
      t.cloud!.nova.quotas.delete(projects.demo!);
    }
  });

  test('a hold lapses when its operation fails, when its cluster is deleted, and when it expires (an operation lost)', async () => {
    room('demo', 1);
    const db = t.app.services.db;
    try {
      const refusedNow = async (name: string) => assert.equal((await create('demo', name)).statusCode, 403);
      const first = await create('demo', 'lapse-1');
      assert.equal(first.statusCode, 202);
      await refusedNow('lapse-x');
      await db.query("UPDATE operation SET state = 'failed', finished_at = now() WHERE cluster_id = $1", [first.json().uuid]);
      const second = await create('demo', 'lapse-2');
      assert.equal(second.statusCode, 202, second.body);
      await refusedNow('lapse-y');
      await db.query('DELETE FROM cluster WHERE uuid = $1', [second.json().uuid]);
      const third = await create('demo', 'lapse-3');
      assert.equal(third.statusCode, 202, third.body);
      await refusedNow('lapse-z');
      // Its operation still says running, but nothing has run it for longer than the hold lives.
      await db.query("UPDATE quota_hold SET expires_at = now() - interval '1 second' WHERE cluster_id = $1", [third.json().uuid]);
      assert.equal((await create('demo', 'lapse-4')).statusCode, 202);
      const [{ n }] = await db.query("SELECT count(*)::int AS n FROM quota_hold h JOIN cluster c ON c.uuid = h.cluster_id WHERE c.name LIKE 'lapse-%'");
      assert.equal(n, 1, 'the lapsed holds are let go when a new one is written');
    } finally {
      t.cloud!.nova.quotas.delete(projects.demo!);
    }
  });
});

describe('with a worker: what is accepted is made, none fails for a quota', () => {
  let t: TestApp;
  let worker: Awaited<ReturnType<typeof startWorker>> | undefined;
  let template: string;
  let project: string;
  before(async () => {
    t = await testApp({ cloud: true, config: (c) => { c.maxClustersPerProject = 100; c.openstack.timeoutMs = 60_000; } }); // fifty creates at once on a loaded machine: no pre-check times out
    project = t.keystone.state.findProjectByName('demo', 'default')!.id;
    const r = await t.as('demo', {
      method: 'POST',
      url: '/v1/clustertemplates',
      payload: { name: 'k8s', coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', flavor_id: 'm1.small', master_flavor_id: 'm1.small', labels: { kube_tag: 'v1.35.1' } },
    });
    assert.equal(r.statusCode, 201, r.body);
    template = r.json().uuid;
    worker = await startWorker({
      redisUrl: process.env.REDIS_URL!,
      concurrency: 3,
      heartbeatMs: 1000,
      prefix: t.config.queuePrefix,
      db: t.app.services.db,
      config: t.config,
      lockDurationMs: 1000,
      stalledIntervalMs: 300,
      healthIntervalMs: 0,
      runner: { lockRetryMs: 100, pollMs: 20, backoff: { baseMs: 50, maxMs: 500, maxRetries: 8 } },
    });
  });
  after(async () => {
    await worker?.close();
    await t.close();
  });

  test('six creates one after the other where three fit: three made, three refused, none CREATE_FAILED; made, they count as in use and hold nothing', async () => {
    t.cloud!.nova.setQuota(project, { instances: 6, cores: 100, ram: 1_000_000 });
    const accepted: string[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await t.as('demo', { method: 'POST', url: '/v1/clusters', payload: { cluster_template_id: template, name: `made-${i}`, master_count: 1, node_count: 1 } });
      if (r.statusCode === 202) accepted.push(r.json().uuid);
      else {
        assert.equal(r.statusCode, 403, r.body);
        assert.match(r.json().errors[0].detail, /instances: needed 2, in use \d+, (held by accepted operations \d+, )?limit 6/);
      }
    }
    assert.equal(accepted.length, 3);
    const statuses = async () => (await t.app.services.db.getRepository(ClusterEntity).find({ where: { project_id: project } })).map((c) => c.status);
    const end = Date.now() + 120_000;
    while ((await statuses()).some((s) => s.endsWith('_IN_PROGRESS')) && Date.now() < end) await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(await statuses(), ['CREATE_COMPLETE', 'CREATE_COMPLETE', 'CREATE_COMPLETE']);
    const again = await t.as('demo', { method: 'POST', url: '/v1/clusters', payload: { cluster_template_id: template, name: 'one-more', master_count: 1, node_count: 1 } });
    assert.equal(again.statusCode, 403, again.body);
    assert.match(again.json().errors[0].detail, /instances: needed 2, in use 6, limit 6\./, 'what exists is in use, no longer held');
  });

  test('50 creates at once from two tenants: exactly what fits accepted, all of them made, none CREATE_FAILED', async () => {
    const other = t.keystone.state.findProjectByName('other', 'default')!.id;
    const tpl = await t.as('other', {
      method: 'POST',
      url: '/v1/clustertemplates',
      payload: { name: 'k8s', coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', flavor_id: 'm1.small', master_flavor_id: 'm1.small', labels: { kube_tag: 'v1.35.1' } },
    });
    assert.equal(tpl.statusCode, 201, tpl.body);
    // demo has three clusters (six instances): room for three more; other for four. Instances bind first.
    t.cloud!.nova.setQuota(project, { instances: 12, cores: 100, ram: 1_000_000, server_groups: 100 });
    t.cloud!.nova.setQuota(other, { instances: 8, cores: 100, ram: 1_000_000 });
    t.cloud!.neutron.quotas.set(project, { security_group: 100, security_group_rule: 1000 });
    const send = (i: number) => {
      const user = i % 2 === 0 ? 'demo' : 'other';
      return t.as(user, { method: 'POST', url: '/v1/clusters', payload: { cluster_template_id: user === 'demo' ? template : tpl.json().uuid, name: `burst-${i}`, master_count: 1, node_count: 1 } }).then((r) => ({ user, r }));
    };
    const all = await Promise.all(Array.from({ length: 50 }, (_, i) => send(i)));
    for (const [user, fits] of [['demo', 3], ['other', 4]] as const) {
      const mine = all.filter((x) => x.user === user);
      assert.equal(mine.filter((x) => x.r.statusCode === 202).length, fits, `${user}: ${[...new Set(mine.map((x) => x.r.statusCode === 202 ? 202 : x.r.json().errors[0].detail))].join("\n")}`);
      for (const x of mine.filter((y) => y.r.statusCode !== 202)) {
        assert.equal(x.r.statusCode, 403, x.r.body);
        assert.match(x.r.json().errors[0].detail, /^Resource limit exceeded: .*instances: needed 2, /);
      }
    }
    const burst = async () => (await t.app.services.db.getRepository(ClusterEntity).find()).filter((c) => c.name.startsWith('burst-')).map((c) => c.status);
    const end = Date.now() + 180_000;
    while ((await burst()).some((s) => s.endsWith('_IN_PROGRESS')) && Date.now() < end) await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(await burst(), Array(7).fill('CREATE_COMPLETE'));
  });
});
