// A delete whose run ends right after Keystone deleted the cluster's credential (a worker killed there,
// a lost answer) must still finish. Before, the row kept naming the credential it no longer had, so the
// next run logged in with it, got a 401 at its first cloud step and failed; every later delete failed
// the same way and the row stayed for ever (the soak met it under worker kills). Now the row retires
// the credential before Keystone deletes it, and the next run only deletes it again (gone: done). The
// row read at the cut shows it: the credential Keystone no longer has is no longer the current one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { api, createCluster, harness, leftovers, settled, startWorker, until } from './lifecycle-support.js';

test('a delete cut right after Keystone deleted the cluster credential finishes on its next run', async () => {
  const h = await harness();
  const cut: string[] = [];
  const rowAtCut: { app_cred_id: string | null; retired_app_creds: { id: string }[] }[] = [];
  const base = h.workerOptions();
  // Between Keystone's delete and the row forgetting the credential, the worker dies (its run never
  // goes on; the job stalls) and another worker resumes the delete from its first step.
  const first = await startWorker(h.workerOptions({
    runner: {
      ...base.runner,
      hooks: {
        async afterCredentialDelete(id) {
          cut.push(id);
          rowAtCut.push(...(await h.t.app.services.db.query(`SELECT app_cred_id, retired_app_creds FROM cluster WHERE app_cred_id = $1 OR retired_app_creds @> $2::jsonb`, [id, JSON.stringify([{ id }])])));
          void first.close(true);
          await new Promise(() => undefined);
        },
      },
    },
  }));
  let worker: { close(force?: boolean): Promise<void> } = first;
  try {
    const uuid = await createCluster(h, 'cred', 1, 1);
    const made = await settled(h, uuid, 'CREATE_COMPLETE');
    assert.equal(made.status, 'CREATE_COMPLETE');
    const r = await api(h, 'DELETE', `/v1/clusters/${uuid}`);
    assert.equal(r.status, 204, JSON.stringify(r.body));
    await until('the first worker cut after the credential delete', async () => cut.length > 0);
    worker = await startWorker(h.workerOptions());
    await until(`cluster ${uuid} to be gone`, async () => {
      const c = await api(h, 'GET', `/v1/clusters/${uuid}`);
      assert.notEqual(c.body.status, 'DELETE_FAILED', String(c.body.status_reason));
      return c.status === 404;
    }, 60_000);
    assert.equal(cut.length, 1, 'the run was cut after the credential was deleted');
    // What the next run read: the credential Keystone no longer had was the row's retired one, not its current one.
    assert.deepEqual(rowAtCut.map((r) => [r.app_cred_id, r.retired_app_creds.map((x) => x.id)]), [[null, [cut[0]]]]);
    assert.equal(h.t.keystone.state.appCreds.get(cut[0]!), undefined, 'the credential is gone from Keystone');
    assert.equal((await api(h, 'GET', `/v1/clusters/${uuid}`)).status, 404);
    assert.deepEqual(leftovers(h).map((x) => `${x.service}:${x.type}:${x.id}`), []);
  } finally {
    await worker.close();
    await h.close();
  }
});
