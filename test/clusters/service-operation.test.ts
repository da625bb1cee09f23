// What became of an operation the service starts by itself (src/clusters/service-operation.ts): undefined
// when it started, else why not, in words the health pass notes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serviceOutcome } from '../../src/clusters/service-operation.js';
import { errors } from '../../src/domain/errors.js';
import type { Begun } from '../../src/operations/begin.js';

test('started: undefined; gone, refused by state or by another operation, or joined: why not', () => {
  const error = errors.operationInProgress('c', 'resize');
  const cases: [Begun<undefined>, string | undefined][] = [
    [{ outcome: 'started', op: {} as never, cluster: {} as never, value: undefined }, undefined],
    [{ outcome: 'gone' }, 'the cluster is gone'],
    [{ outcome: 'refused', why: 'state', status: 'UPDATE_FAILED', error }, 'the cluster is UPDATE_FAILED'],
    [{ outcome: 'refused', why: 'busy', active: 'resize', error }, 'another operation runs'],
    [{ outcome: 'joined', op: {} as never, cluster: {} as never }, "the cluster's operation is joined"],
    [{ outcome: 'unchanged', cluster: {} as never }, "the cluster's operation is unchanged"],
  ];
  for (const [begun, want] of cases) assert.equal(serviceOutcome(begun), want, begun.outcome);
});
