// The registry of operations a worker runs (workers/operations.ts): every cluster operation by its kind, bound to
// the worker's dependencies; a job dispatched to the operation it names, the worker's own before the shared
// registry; a job naming none fails at once, never retried (BullMQ's UnrecoverableError).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UnrecoverableError, type Job } from 'bullmq';
import { OPERATION_KINDS } from '../../src/domain/operations.js';
import { clusterOperations, dispatcher, operations, type Operation } from '../../workers/operations.js';
import type { RunnerDeps } from '../../workers/runner.js';

const job = (name: string) => ({ name, data: {} }) as Job;

test('every operation kind has its runner', () => {
  const ops = clusterOperations({} as RunnerDeps);
  assert.deepEqual([...ops.keys()].sort(), [...OPERATION_KINDS].sort());
  for (const op of ops.values()) assert.equal(typeof op, 'function');
});

test('a job goes to the operation it names: the worker\'s own first, then the shared registry; none named: unrecoverable', async () => {
  const mine: Operation = async () => 'mine';
  const shared: Operation = async () => 'shared';
  operations.set('test-shared', shared);
  operations.set('test-both', shared);
  try {
    const dispatch = dispatcher(new Map([['test-both', mine], ['test-mine', mine]]));
    assert.equal(await dispatch(job('test-mine')), 'mine');
    assert.equal(await dispatch(job('test-both')), 'mine', 'the worker\'s own first');
    assert.equal(await dispatch(job('test-shared')), 'shared');
    assert.throws(() => dispatch(job('no-such-operation')), (e) => e instanceof UnrecoverableError && /no operation named "no-such-operation"/.test(e.message));
  } finally {
    operations.delete('test-shared');
    operations.delete('test-both');
  }
});
