// An upgrade whose replacement control plane joined while its load balancer member was never added
// (the member's POST failed, or the run that booted it ended before adding it) must keep the API
// reachable: the new member goes in before the old one comes out. Before, the retiring run removed
// the old control plane's member first, the pool was left empty, nothing answered at the API address
// and the upgrade retried its GET /api/v1/nodes for ever (the soak's 11 stuck upgrades in 100).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nodeUsable } from '../../workers/cluster/bootstrap.js';
import { api, createCluster, deleteCluster, harness, leftovers, servers, settled, startWorker, until, userKubeClient } from './lifecycle-support.js';

test('a control plane replaced while its successor has no load balancer member keeps the API reachable', async () => {
  const h = await harness();
  const base = h.workerOptions();
  // Retryable errors come back fast: the member's POST fails for as long as the test says.
  const worker = await startWorker(h.workerOptions({ runner: { ...base.runner, backoff: { baseMs: 100, maxMs: 500, maxRetries: 1000 } } }));
  const octavia = h.t.cloud!.sims.octavia.state;
  const members = () => [...octavia.members.values()].filter((m) => m.name?.startsWith('roll-'));
  try {
    const uuid = await createCluster(h, 'roll', 1, 1);
    await settled(h, uuid, 'CREATE_COMPLETE');
    const before = [...servers(h, uuid).keys()];
    assert.equal(members().length, 1, 'one member: the control plane');
    const kube = await userKubeClient(h, uuid);

    // Every member POST fails: the replacement boots and joins without a member of its own.
    const fault = h.t.cloud!.sims.faults.octavia;
    const unfault = fault.inject({ method: 'POST', path: /\/members$/, action: 'error', status: 503 });
    const r = await api(h, 'POST', `/v1/clusters/${uuid}/actions/upgrade`, { cluster_template: h.templates.v136 });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    const fresh = await until('the replacement control plane Ready', async () => {
      const name = [...servers(h, uuid).entries()].find(([n, s]) => !before.includes(n) && s.metadata.magnum_role === 'control-plane')?.[0];
      if (!name) return undefined;
      const node = (await kube.listNodes()).find((n) => n.metadata.name === name);
      return node && nodeUsable(node) ? name : undefined;
    });
    // The next run retires the old control plane: it may not take the pool's only member.
    const tried = () => fault.list()[0]?.hits ?? 0;
    const hits = tried();
    await until('a run retiring the old control plane', async () => tried() > hits || members().length === 0);
    assert.equal(members().length, 1, 'the old control plane keeps its member while its successor has none');
    assert.ok(h.t.cloud!.sims.kube.resolve(String((await api(h, 'GET', `/v1/clusters/${uuid}`)).body.api_address).slice(8, -5), 6443), 'the API answers');
    unfault();

    const c = await settled(h, uuid, 'UPDATE_COMPLETE', 60_000);
    assert.equal(c.cluster_template_id, h.templates.v136);
    assert.ok(servers(h, uuid).has(fresh), 'the replacement stays');
    assert.deepEqual(members().map((m) => m.name), [`${fresh}-6443`], 'the pool holds the replacement only');
    await deleteCluster(h, uuid);
    assert.deepEqual(leftovers(h).map((x) => `${x.service}:${x.type}:${x.id}`), []);
  } finally {
    await worker.close();
    await h.close();
  }
});
