// The soak of issue 20 at npm test's size (bench/soak/run.ts SHORT; `npm run bench -- soak` runs
// 100 clusters): 2 API and 3 worker processes of the compiled code, the simulator in its own
// process failing about a tenth of the cloud's calls (errors, dropped and lost answers), clusters
// driven through create, resize, upgrade and delete while workers are killed every few seconds
// and PostgreSQL, Redis and an API process each go down once. Every life converges, every kind of
// fault fired, no node was booted twice, nothing is left in the cloud, the database or the queue,
// and no process crashed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runSoak, SHORT } from '../../../bench/soak/run.js';

test('the short soak: every life converges through faults, kills and restarts, and leaves nothing', async () => {
  const lines: string[] = [];
  const r = await runSoak({ ...SHORT, log: (l) => lines.push(l) });
  const where = `${r.dir ? ` (logs in ${r.dir})` : ''}\n${lines.join('\n')}`;
  assert.deepEqual(r.lives.failures, [], `lives that did not converge${where}`);
  assert.equal(r.lives.converged, SHORT.clusters);
  assert.deepEqual(r.operations, { create: SHORT.clusters, resize: SHORT.clusters, upgrade: SHORT.clusters, delete: SHORT.clusters });
  for (const action of ['error', 'drop', 'lost']) assert.ok((r.faults.hits[action] ?? 0) > 0, `faults of kind ${action} fired: ${JSON.stringify(r.faults)}`);
  assert.ok(r.faults.share > 0.05, `about a tenth of the cloud's calls failed: ${r.faults.share}`);
  assert.ok(r.chaos.workerKills >= 5, `workers were killed: ${r.chaos.workerKills}`);
  assert.equal(r.chaos.postgresRestarts.length, 1);
  assert.equal(r.chaos.redisRestarts.length, 1);
  assert.equal(r.chaos.apiKills, 1);
  assert.deepEqual(r.chaos.crashes, [], where);
  assert.equal(r.boots.duplicates, 0, JSON.stringify(r.boots.repeated));
  assert.deepEqual(r.leftovers.cloud, [], where);
  assert.equal(r.leftovers.clusters, 0);
  assert.equal(r.leftovers.operations, 0, 'no operation left in the database');
  assert.equal(r.leftovers.queue.jobsOfLiveOperations, 0, `no work left in the queue: ${JSON.stringify(r.leftovers.queue)}`);
});
