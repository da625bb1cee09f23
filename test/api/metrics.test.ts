// The API's Prometheus metrics (src/api/metrics.ts): its own registry per app instance, request durations by
// route and status, token cache hits and misses, Keystone call latency; process metrics only when asked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Metrics } from '../../src/api/metrics.js';

test('what is observed is exposed; two instances do not share a registry', async () => {
  const a = new Metrics({ processMetrics: false });
  const b = new Metrics({ processMetrics: false });
  a.cache('hit');
  a.cache('hit');
  a.cache('miss');
  a.keystoneCall('validate', 'ok', 0.02);
  a.httpDuration.observe({ method: 'GET', route: '/v1/clusters', status: '200' }, 0.004);
  const text = await a.registry.metrics();
  assert.match(text, /keystone_token_cache_total\{result="hit"\} 2/);
  assert.match(text, /keystone_token_cache_total\{result="miss"\} 1/);
  assert.match(text, /keystone_request_duration_seconds_count\{operation="validate",outcome="ok"\} 1/);
  assert.match(text, /http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/v1\/clusters",status="200"\} 1/);
  assert.doesNotMatch(await b.registry.metrics(), /result="hit"\} 2/);
  assert.doesNotMatch(text, /process_cpu/);
});

test('process metrics when asked (the API process, not the tests’ many apps)', async () => {
  assert.match(await new Metrics({ processMetrics: true }).registry.metrics(), /process_cpu_user_seconds_total/);
});
