// Issue 6 item 8, the hard cases: the same life (create, resize up and down, delete) with 10% of
// the cloud's calls failing (5xx, and POSTs applied but unanswered), with the worker process
// killed by SIGKILL at random moments, and 20 clusters at once. Each ends with nothing left in the
// project and no server booted twice.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { apiRetrying, createCluster, deleteCluster, harness, leftovers, servers, settled, startWorker, until, type Harness } from './lifecycle-support.js';

let h: Harness;

before(async () => {
  // Slower than the default (a kubeadm join retries for 10 simulated minutes: 4 s here), so that
  // 20 clusters on one worker stay within the join budget of their nodes.
  h = await harness({ roomy: true, timeScale: 0.004 });
});
after(async () => {
  await h?.close();
});

/** create (1 control plane, 2 workers) → resize to 3 → resize to 1 → delete, asserting along the way. */
async function life(name: string, timeoutMs = 120_000): Promise<void> {
  const uuid = await createCluster(h, name, 1, 2);
  await settled(h, uuid, 'CREATE_COMPLETE', timeoutMs);
  assert.equal(servers(h, uuid).size, 3);
  let r = await apiRetrying(h, 'POST', `/v1/clusters/${uuid}/actions/resize`, { node_count: 3 });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  await settled(h, uuid, 'UPDATE_COMPLETE', timeoutMs);
  assert.equal(servers(h, uuid).size, 4);
  r = await apiRetrying(h, 'POST', `/v1/clusters/${uuid}/actions/resize`, { node_count: 1 });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  await settled(h, uuid, 'UPDATE_COMPLETE', timeoutMs);
  assert.equal(servers(h, uuid).size, 2);
  await deleteCluster(h, uuid, timeoutMs);
}

test('10% of cloud calls fail (5xx, or applied without an answer): the life completes, nothing leaks', async () => {
  const sims = h.t.cloud!.sims;
  const removers: (() => void)[] = [];
  for (const svc of ['nova', 'neutron', 'octavia'] as const) {
    removers.push(sims.faults[svc].inject({ action: 'error', status: 503, rate: 0.05 }));
    removers.push(sims.faults[svc].inject({ method: 'POST', action: 'lost', rate: 0.05 }));
  }
  const worker = await startWorker(h.workerOptions());
  try {
    await life('faulty');
  } finally {
    for (const r of removers) r();
    await worker.close();
  }
  const hits = Object.values(sims.faults).reduce((a, f) => a + f.list().length, 0);
  assert.equal(hits, 0, 'the fault rules were removed');
  assert.deepEqual(leftovers(h).map((r) => `${r.service}:${r.type}:${r.id}`), []);
});

function child(): ChildProcess {
  const config = { ...h.t.config, secretKeys: h.t.config.secretKeys.map((k) => k.toString('base64')) };
  const options = { ...h.workerOptions(), db: undefined, config: undefined };
  return spawn(process.execPath, ['--import', 'tsx', 'test/support/worker-child.ts'], {
    env: { ...process.env, WORKER_CHILD_CONFIG: JSON.stringify({ config, options }) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

async function ready(p: ChildProcess): Promise<void> {
  let out = '';
  p.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  await until('the worker process to start', async () => out.includes('ready') || (p.exitCode !== null && (() => { throw new Error('worker exited'); })()), 30_000);
}

test('a worker process killed with SIGKILL at random moments: another resumes, no duplicate, nothing leaks', async () => {
  let current = child();
  await ready(current);
  let kills = 0;
  let stop = false;
  const killer = (async () => {
    while (!stop && kills < 6) {
      await new Promise((r) => setTimeout(r, 300 + Math.random() * 1200));
      if (stop) break;
      current.kill('SIGKILL');
      await once(current, 'exit');
      kills++;
      current = child();
      await ready(current);
    }
  })();
  try {
    await life('killed', 180_000);
  } finally {
    stop = true;
    await killer;
    current.kill('SIGKILL');
  }
  assert.ok(kills >= 2, `the worker was killed ${kills} times`);
  assert.deepEqual(leftovers(h).map((r) => `${r.service}:${r.type}:${r.id}`), []);
});

test('20 clusters created and deleted at once: all complete, nothing leaks', async () => {
  // Twenty lives in one process load the event loop: a lock of a few seconds and a calmer poll
  // keep BullMQ from declaring busy jobs stalled (a job that does stall is resumed all the same,
  // by BullMQ or by the relay's sweep: test/scenarios/operation-recovery.test.ts).
  const base = h.workerOptions();
  const worker = await startWorker(h.workerOptions({ concurrency: 8, lockDurationMs: 5000, stalledIntervalMs: 2000, runner: { ...base.runner, pollMs: 100 } }));
  try {
    const uuids = await Promise.all(Array.from({ length: 20 }, (_, i) => createCluster(h, `many-${i}`, 1, 1)));
    await Promise.all(uuids.map((u) => settled(h, u, 'CREATE_COMPLETE', 180_000)));
    for (const u of uuids) assert.equal(servers(h, u).size, 2);
    await Promise.all(uuids.map((u) => deleteCluster(h, u, 180_000)));
  } finally {
    await worker.close();
  }
  assert.deepEqual(leftovers(h).map((r) => `${r.service}:${r.type}:${r.id}`), []);
});
