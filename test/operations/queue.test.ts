// The operations queue as the relay and the workers share it (src/operations/queue.ts): its name, how long
// finished jobs stay, and the live workers' registry kept under the deployment's own prefix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JOB_RETENTION, OPERATIONS_QUEUE, servicesKey } from '../../src/operations/queue.js';

test('the workers’ registry is under the deployment’s prefix, so deployments sharing a Redis stay apart', () => {
  assert.equal(servicesKey('bull'), 'bull:magnum:services');
  assert.notEqual(servicesKey('a'), servicesKey('b'));
});

test('finished jobs are removed after a while; failed ones kept longer', () => {
  assert.equal(OPERATIONS_QUEUE, 'cluster-operations');
  assert.ok(JOB_RETENTION.removeOnComplete.age > 0 && JOB_RETENTION.removeOnComplete.count > 0);
  assert.ok(JOB_RETENTION.removeOnFail.age > JOB_RETENTION.removeOnComplete.age);
});
