// An upgrade whose run ends right after it booted a replacement control plane (a worker killed
// there, a retryable error) must still give that node its join turn: the next run finds the node
// booting and waits for it. Before, only the run that booted it granted the turn, so the node
// waited in cloud-init for ever and the upgrade never ended (the soak met it under worker kills).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OpenStackError } from '../../src/openstack/errors.js';
import { api, createCluster, deleteCluster, harness, leftovers, servers, settled, startWorker } from './lifecycle-support.js';

test('a replacement control plane booted by a run that then ended joins all the same', async () => {
  const h = await harness();
  let armed = false;
  let cut = 0;
  const base = h.workerOptions();
  const worker = await startWorker(h.workerOptions({
    runner: {
      ...base.runner,
      hooks: {
        // Between the server's create and its record: the run ends with a retryable error, once.
        async afterCreate(type) {
          if (!armed || type !== 'server' || cut > 0) return;
          cut++;
          throw new OpenStackError('compute', 503, 'req-test', {}, 'server', 'the run ends here');
        },
      },
    },
  }));
  try {
    const uuid = await createCluster(h, 'roll', 1, 1);
    await settled(h, uuid, 'CREATE_COMPLETE');
    armed = true;
    const r = await api(h, 'POST', `/v1/clusters/${uuid}/actions/upgrade`, { cluster_template: h.templates.v136 });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    const c = await settled(h, uuid, 'UPDATE_COMPLETE', 60_000);
    assert.equal(cut, 1, 'the run was cut after the boot');
    assert.equal(c.cluster_template_id, h.templates.v136);
    assert.equal(servers(h, uuid).size, 2);
    await deleteCluster(h, uuid);
    assert.deepEqual(leftovers(h).map((x) => `${x.service}:${x.type}:${x.id}`), []);
  } finally {
    await worker.close();
    await h.close();
  }
});
