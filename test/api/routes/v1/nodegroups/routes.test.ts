// Node groups through the API (src/api/routes/v1/nodegroups/routes.ts; spec §3.4): the 1.9 gate, who may do
// what, list and show views, pagination, and the 1.14 fields. Writes in detail: test/clusters/nodegroup-*.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { testApp, type TestApp, type User } from '../../../../support/app.js';
import { nodegroupCluster, insertNodegroup, type ClusterFixture } from '../../../../support/nodegroup-fixture.js';

let t: TestApp;
let f: ClusterFixture;
before(async () => {
  t = await testApp();
  f = await nodegroupCluster(t, { name: 'ngc', labels: { kube_tag: 'v1.35.2', a: '1', b: '2' } });
});
after(() => t.close());

const at = (minor: number) => ({ 'openstack-api-version': `container-infra 1.${minor}` });
const call = (user: User, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, minor?: number) =>
  t.as(user, { method, url, ...(payload === undefined ? {} : { payload: payload as object }), ...(minor === undefined ? {} : { headers: at(minor) }) });
const detail = (r: { json(): unknown }) => (r.json() as { errors: { detail: string }[] }).errors[0]!.detail;
const base = (fx: ClusterFixture) => `/v1/clusters/${fx.cluster.uuid}/nodegroups`;

describe('microversion gate', () => {
  const ops = [
    ['GET', ''],
    ['GET', '/default-worker'],
    ['POST', ''],
    ['PATCH', '/default-worker'],
    ['DELETE', '/default-worker'],
  ] as const;
  for (const [method, suffix] of ops) {
    test(`${method} nodegroups${suffix}: 406 at 1.8, and at the default 1.1`, async () => {
      const payload = method === 'POST' ? { name: 'x' } : method === 'PATCH' ? [] : undefined;
      for (const minor of [8, 1]) {
        const r = await call('demo', method, `${base(f)}${suffix}`, payload, minor);
        assert.equal(r.statusCode, 406, r.body);
        assert.equal(detail(r), `Version 1.${minor} was requested but the requested API ${method} is not supported for this version.`);
      }
    });
  }

  test('reads work from 1.9', async () => {
    assert.equal((await call('demo', 'GET', base(f), undefined, 9)).statusCode, 200);
    assert.equal((await call('demo', 'GET', `${base(f)}/default-worker`, undefined, 9)).statusCode, 200);
  });
});

describe('who may do what', () => {
  // Reads: admin sees every project; writes: everyone in their own project only (Magnum has no
  // all-projects rule for node group writes); readers never write.
  const matrix: [User, number, number, number, number, number][] = [
    //  user          list show create patch delete
    ['admin', 200, 200, 404, 404, 404],
    ['demo', 200, 200, 202, 202, 204],
    ['demo-reader', 200, 200, 403, 403, 403],
    ['other', 404, 404, 404, 404, 404],
  ];
  for (const [user, list, show, create, patch, del] of matrix) {
    test(`${user}: list ${list}, show ${show}, create ${create}, patch ${patch}, delete ${del}`, async () => {
      const fx = await nodegroupCluster(t);
      const extra = await insertNodegroup(t, fx, { max_node_count: 4, status: 'CREATE_COMPLETE' });
      assert.equal((await call(user, 'GET', base(fx))).statusCode, list);
      assert.equal((await call(user, 'GET', `${base(fx)}/${extra.uuid}`)).statusCode, show);
      const c = await call(user, 'POST', base(fx), { name: 'added' });
      assert.equal(c.statusCode, create, c.body);
      // Each write needs an idle cluster: a fresh one for the patch and the delete.
      const fx2 = await nodegroupCluster(t);
      const ng2 = await insertNodegroup(t, fx2, { status: 'CREATE_COMPLETE' });
      const p = await call(user, 'PATCH', `${base(fx2)}/${ng2.uuid}`, [{ op: 'replace', path: '/max_node_count', value: 3 }]);
      assert.equal(p.statusCode, patch, p.body);
      const fx3 = await nodegroupCluster(t);
      const ng3 = await insertNodegroup(t, fx3, { status: 'CREATE_COMPLETE' });
      const d = await call(user, 'DELETE', `${base(fx3)}/${ng3.uuid}`);
      assert.equal(d.statusCode, del, d.body);
      if (create === 403) assert.equal(detail(c), "Policy doesn't allow nodegroup:create to be performed.");
      if (create === 404) assert.equal(detail(c), `Cluster ${fx.cluster.uuid} could not be found.`);
    });
  }

  test('admin writes in a cluster of its own project', async () => {
    const fx = await nodegroupCluster(t, { owner: 'admin' });
    const r = await call('admin', 'POST', base(fx), { name: 'admins' });
    assert.equal(r.statusCode, 202, r.body);
  });
});

describe('list', () => {
  test('items are the reduced view, with min/max/merge_labels at their defaults whatever the group has', async () => {
    const fx = await nodegroupCluster(t);
    await insertNodegroup(t, fx, { name: 'bounded', min_node_count: 1, max_node_count: 5, status: 'CREATE_COMPLETE' });
    const r = await call('demo', 'GET', base(fx));
    assert.equal(r.statusCode, 200, r.body);
    const items = r.json().nodegroups as Record<string, unknown>[];
    assert.deepEqual(items.map((i) => i.name), ['default-master', 'default-worker', 'bounded']);
    assert.deepEqual(items[2], {
      uuid: items[2]!.uuid,
      name: 'bounded',
      flavor_id: 'm1.small',
      image_id: 'ubuntu-24.04',
      node_count: 1,
      role: 'worker',
      is_default: false,
      status: 'CREATE_COMPLETE',
      stack_id: null,
      min_node_count: 0,
      max_node_count: null,
      merge_labels: false,
    });
    assert.equal('next' in r.json(), false);
  });

  test('the same at 1.9 and 1.14 (no node_labels in list items)', async () => {
    const a = (await call('demo', 'GET', base(f), undefined, 9)).json();
    const b = (await call('demo', 'GET', base(f), undefined, 14)).json();
    assert.deepEqual(a, b);
  });

  test('?role= filters; the cluster may be named by name; a trailing slash is the same', async () => {
    const r = await call('demo', 'GET', '/v1/clusters/ngc/nodegroups?role=master');
    assert.deepEqual(r.json().nodegroups.map((i: { name: string }) => i.name), ['default-master']);
    const slash = await call('demo', 'GET', `${base(f)}/?role=master`);
    assert.deepEqual(slash.json(), r.json(), 'the client lists with a trailing slash');
    const none = await call('demo', 'GET', `${base(f)}?role=nope`);
    assert.deepEqual(none.json().nodegroups, []);
  });

  test('next on a full page, with the cluster uuid path and without role; following it ends the list', async () => {
    const fx = await nodegroupCluster(t, { name: 'paged' });
    const extra = await insertNodegroup(t, fx, { name: 'w2' });
    const r = await call('demo', 'GET', '/v1/clusters/paged/nodegroups?limit=2&role=worker');
    const page = r.json();
    assert.equal(page.nodegroups.length, 2);
    assert.equal(page.next, `http://localhost:80/v1/clusters/${fx.cluster.uuid}/nodegroups?sort_key=id&sort_dir=asc&limit=2&marker=${extra.uuid}`);
    const last = await call('demo', 'GET', new URL(page.next).pathname + new URL(page.next).search);
    assert.deepEqual(last.json(), { nodegroups: [] });
  });

  test('sort by name, by a jsonb column across a marker, both directions', async () => {
    const fx = await nodegroupCluster(t);
    await insertNodegroup(t, fx, { name: 'aaa', labels: { z: '1' }, node_addresses: ['10.1.0.1'] });
    const names = async (qs: string) => {
      const out: string[] = [];
      let url: string | undefined = `${base(fx)}?${qs}`;
      while (url) {
        const r = await call('demo', 'GET', url);
        assert.equal(r.statusCode, 200, r.body);
        out.push(...r.json().nodegroups.map((i: { name: string }) => i.name));
        url = r.json().next ? new URL(r.json().next).pathname + new URL(r.json().next).search : undefined;
      }
      return out;
    };
    assert.deepEqual(await names('sort_key=name&sort_dir=desc&limit=1'), ['default-worker', 'default-master', 'aaa']);
    assert.deepEqual(await names('sort_key=labels&limit=1'), (await names('sort_key=labels')));
    assert.equal((await names('sort_key=node_addresses&sort_dir=desc&limit=2')).length, 3);
  });

  const bad: [string, number, RegExp][] = [
    ['limit=0', 400, /^Limit must be positive$/],
    ['sort_key=bogus', 400, /^The sort_key value "bogus" is an invalid field for sorting$/],
    ['sort_dir=up', 400, /^Invalid sort direction: up/],
    ['marker=zzz', 400, /field\/attribute marker/],
    [`marker=${randomUUID()}`, 404, /^Nodegroup [0-9a-f-]{36} could not be found\.$/],
    ['name=x', 400, /^Unknown argument: "name"$/],
  ];
  for (const [qs, status, message] of bad) {
    test(`${status} for ?${qs}`, async () => {
      const r = await call('demo', 'GET', `${base(f)}?${qs}`);
      assert.equal(r.statusCode, status, r.body);
      assert.match(detail(r), message);
    });
  }

  test('unknown cluster → 404; a cluster name two clusters share → 409', async () => {
    const r = await call('demo', 'GET', '/v1/clusters/missing/nodegroups');
    assert.equal(r.statusCode, 404);
    assert.equal(detail(r), 'Cluster missing could not be found.');
    await nodegroupCluster(t, { name: 'twin' });
    await nodegroupCluster(t, { name: 'twin' });
    const r2 = await call('demo', 'GET', '/v1/clusters/twin/nodegroups');
    assert.equal(r2.statusCode, 409);
    assert.equal(detail(r2), 'Multiple clusters exist with same name. Please use the cluster uuid instead.');
  });
});

describe('show', () => {
  test('by uuid, name or integer id: the detail view with links and labels diffed against the cluster', async () => {
    const ng = await insertNodegroup(t, f, { name: 'shown', labels: { kube_tag: 'v1.36.0', a: '1', c: '3' }, max_node_count: 7 });
    for (const ident of [ng.uuid, 'shown', String(ng.id)]) {
      const r = await call('demo', 'GET', `${base(f)}/${ident}`, undefined, 13);
      assert.equal(r.statusCode, 200, r.body);
      assert.deepEqual(r.json(), {
        id: ng.id,
        uuid: ng.uuid,
        name: 'shown',
        cluster_id: f.cluster.uuid,
        project_id: f.cluster.project_id,
        docker_volume_size: null,
        labels: { kube_tag: 'v1.36.0', a: '1', c: '3' },
        labels_overridden: { kube_tag: 'v1.35.2' },
        labels_added: { c: '3' },
        labels_skipped: { b: '2' },
        links: [
          { href: `http://localhost:80/v1/clusters/${f.cluster.uuid}/nodegroups/${ng.uuid}`, rel: 'self' },
          { href: `http://localhost:80/clusters/${f.cluster.uuid}/nodegroups/${ng.uuid}`, rel: 'bookmark' },
        ],
        flavor_id: 'm1.small',
        image_id: 'ubuntu-24.04',
        node_count: 1,
        role: 'worker',
        min_node_count: 0,
        max_node_count: 7,
        merge_labels: false,
        node_addresses: ['10.0.0.100'],
        is_default: false,
        stack_id: null,
        status: f.cluster.status,
        status_reason: null,
        version: 'v1.35.2',
        created_at: ng.created_at.toISOString().slice(0, 19) + '+00:00',
        updated_at: null,
      });
    }
  });

  test('node_labels and node_taints from 1.14 only', async () => {
    const taints = [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' as const }];
    const ng = await insertNodegroup(t, f, { node_labels: { 'example.com/gpu': 'true' }, node_taints: taints });
    const old = (await call('demo', 'GET', `${base(f)}/${ng.uuid}`, undefined, 13)).json();
    assert.equal('node_labels' in old, false);
    assert.equal('node_taints' in old, false);
    const now = (await call('demo', 'GET', `${base(f)}/${ng.uuid}`, undefined, 14)).json();
    assert.deepEqual(now.node_labels, { 'example.com/gpu': 'true' });
    assert.deepEqual(now.node_taints, taints);
    const defaults = (await call('demo', 'GET', `${base(f)}/default-worker`, undefined, 14)).json();
    assert.deepEqual([defaults.node_labels, defaults.node_taints], [{}, []]);
  });

  test('404 for a group of another cluster, an unknown name, an id out of range; admin reads any project', async () => {
    const other = await nodegroupCluster(t);
    const foreign = await insertNodegroup(t, other);
    for (const ident of [foreign.uuid, String(foreign.id), 'nope', '99999999999']) {
      const r = await call('demo', 'GET', `${base(f)}/${ident}`);
      assert.equal(r.statusCode, 404, ident);
      assert.equal(detail(r), `Nodegroup ${ident} could not be found.`);
    }
    const theirs = await nodegroupCluster(t, { owner: 'other' });
    assert.equal((await call('admin', 'GET', `${base(theirs)}/default-master`)).statusCode, 200);
    assert.equal((await call('demo', 'GET', `${base(theirs)}/default-master`)).statusCode, 404);
  });
});

// Found by the fuzz test (test/scenarios/fuzz.test.ts).
test('an unsupported microversion on a route that documents 406 (node groups) is the 406 of spec §1.4, not a 500 from its serializer', async () => {
  const fx = await nodegroupCluster(t);
  for (const url of [`/v1/clusters/${fx.cluster.uuid}/nodegroups`, `/v1/clusters/${fx.cluster.uuid}/nodegroups/${fx.worker.uuid}`]) {
    const r = await t.as('demo', { method: 'GET', url, headers: { 'openstack-api-version': 'container-infra 9.99' } });
    assert.equal(r.statusCode, 406, r.body);
    assert.equal(r.json().errors[0].code, 'magnum.microversion-unsupported');
  }
});
