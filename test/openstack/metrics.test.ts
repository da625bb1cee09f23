// The metrics of the calls to OpenStack (src/openstack/metrics.ts), in the registry they are given:
// attempts by service, operation and status (the failure kind without an answer), latency by outcome, retries.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import type { CallRecord } from '../../src/openstack/http.js';
import { OpenStackMetrics } from '../../src/openstack/metrics.js';

const call = (over: Partial<CallRecord>): CallRecord => ({ service: 'compute', operation: 'servers.get', method: 'GET', path: '/servers/x', status: 200, kind: undefined, ms: 20, attempt: 1, requestId: undefined, globalRequestId: 'g', ...over });

test('attempts, latency and retries counted as observed; two apps’ registries stay apart', async () => {
  const registry = new Registry();
  const m = new OpenStackMetrics(registry);
  m.observe(call({}));
  m.observe(call({ status: 503, kind: 'server', attempt: 1 }));
  m.observe(call({ status: 0, kind: 'timeout', attempt: 2, ms: 5000 }));
  const text = await registry.metrics();
  assert.match(text, /openstack_requests_total\{service="compute",operation="servers.get",status="200"\} 1/);
  assert.match(text, /openstack_requests_total\{service="compute",operation="servers.get",status="503"\} 1/);
  assert.match(text, /openstack_requests_total\{service="compute",operation="servers.get",status="timeout"\} 1/);
  assert.match(text, /openstack_request_retries_total\{service="compute",operation="servers.get"\} 1/);
  assert.match(text, /openstack_request_duration_seconds_count\{service="compute",operation="servers.get",outcome="ok"\} 1/);
  assert.match(text, /openstack_request_duration_seconds_sum\{service="compute",operation="servers.get",outcome="timeout"\} 5/);
  const other = new Registry();
  new OpenStackMetrics(other);
  assert.doesNotMatch(await other.metrics(), /status="200"\} 1/);
});
