// The bill against the project's quotas (src/preflight/assess.ts): each quota's need, use and limit, and the
// one 403 a shortage is, in Magnum's own words when only its cluster quota is short.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assess, shortage } from '../../src/preflight/assess.js';
import { zero } from '../../src/preflight/quotas.js';

test('the shortage names each short quota with what is needed, in use and the limit; Magnum\'s own words when only its cluster quota is short', () => {
  const needs = { ...zero(), clusters: 1, instances: 4, cores: 5, port: 6 };
  const a = assess(needs, { cores: { limit: 20, used: 16 }, instances: { limit: -1, used: 99 }, port: { limit: 50, used: 0 }, clusters: { limit: 5, used: 1 } });
  assert.deepEqual(a.lines.filter((l) => l.short).map((l) => l.quota), ['cores']);
  assert.equal(a.lines.find((l) => l.quota === 'volumes')!.limit, null, 'a quota nobody reported is not checked');
  const e = shortage(a)!;
  assert.equal(e.status, 403);
  assert.equal(e.message, "Resource limit exceeded: the project's quotas leave too little for this request; cores: needed 5, in use 16, limit 20. Ask for a larger quota or a smaller request.");
  const onlyClusters = shortage(assess(needs, { clusters: { limit: 1, used: 1 } }))!;
  assert.equal(onlyClusters.message, 'Resource limit exceeded: You have reached the maximum clusters per project, 1. You may delete a cluster to make room for a new one.');
  assert.equal(shortage(assess(needs, {})), undefined);
});
