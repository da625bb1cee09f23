// What an operation is as the domain sees it (src/domain/operations.ts): its kinds, its states, and which
// states still have work to do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ACTIVE_STATES, isActive, OPERATION_KINDS, OPERATION_STATES } from '../../src/domain/operations.js';

test('pending, queued and running are active; the end states are not', () => {
  assert.deepEqual(OPERATION_STATES.filter(isActive), ['pending', 'queued', 'running']);
  assert.deepEqual([...ACTIVE_STATES], ['pending', 'queued', 'running']);
  for (const s of ['succeeded', 'failed', 'cancelled'] as const) assert.equal(isActive(s), false, s);
});

test('the kinds a job of the queue can be named by: unique, and the ones the workers run', () => {
  assert.equal(new Set(OPERATION_KINDS).size, OPERATION_KINDS.length);
  for (const k of ['create', 'update', 'resize', 'upgrade', 'delete', 'rotate_ca', 'rotate_credential', 'repair', 'nodegroup_create', 'nodegroup_update', 'nodegroup_delete']) {
    assert.ok((OPERATION_KINDS as readonly string[]).includes(k), k);
  }
});
