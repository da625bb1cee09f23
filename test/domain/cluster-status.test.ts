// The one place a cluster's Magnum status is computed (src/domain/cluster-status.ts): from its latest
// operation and the conditions the workers observed; its health and faults; the conditions of a cluster
// just accepted.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  blockingCondition,
  clusterStatus,
  COMPLETE_SET,
  deriveFaults,
  deriveHealth,
  deriveStatus,
  initialConditions,
  SETTLED_STATUSES,
  type Condition,
  type Conditions,
} from '../../src/domain/cluster-status.js';
import type { OperationKind, OperationState } from '../../src/domain/operations.js';

const c = (status: Condition['status'], message: string = status): Condition => ({ status, reason: status === 'True' ? 'Ready' : 'Pending', message, since: '2026-01-01T00:00:00.000Z' });
const ready: Conditions = { network: c('True'), security_groups: c('True'), api_lb: c('True'), control_plane: c('True'), workers: c('True'), addons: c('True') };
const waiting: Conditions = { ...ready, control_plane: c('Unknown', 'kubeadm init runs'), workers: c('Unknown', 'joining') };
const failed: Conditions = { ...ready, api_lb: c('False', 'quota of load balancers met') };

describe('deriveStatus', () => {
  const cases: [OperationKind, OperationState, Conditions, string | null, string, string | null][] = [
    ['create', 'pending', waiting, null, 'CREATE_IN_PROGRESS', 'control_plane: kubeadm init runs'],
    ['create', 'running', ready, null, 'CREATE_IN_PROGRESS', null],
    ['create', 'succeeded', ready, null, 'CREATE_COMPLETE', null],
    ['create', 'failed', failed, null, 'CREATE_FAILED', 'api_lb: quota of load balancers met'],
    ['create', 'failed', ready, 'NoValidHost: no host', 'CREATE_FAILED', 'NoValidHost: no host'],
    ['create', 'failed', ready, null, 'CREATE_FAILED', 'The operation failed.'],
    ['resize', 'queued', ready, null, 'UPDATE_IN_PROGRESS', null],
    ['upgrade', 'succeeded', ready, null, 'UPDATE_COMPLETE', null],
    ['nodegroup_delete', 'failed', ready, 'x', 'UPDATE_FAILED', 'x'],
    ['delete', 'running', ready, null, 'DELETE_IN_PROGRESS', null],
    ['delete', 'failed', ready, 'stuck port', 'DELETE_FAILED', 'stuck port'],
    ['rotate_ca', 'cancelled', ready, null, 'UPDATE_FAILED', 'The operation was cancelled.'],
    ['create', 'cancelled', ready, 'deleted meanwhile', 'CREATE_FAILED', 'deleted meanwhile'],
  ];
  for (const [kind, state, conditions, error, status, reason] of cases) {
    test(`${kind} ${state}${error ? ` (${error})` : ''} → ${status}`, () => {
      assert.deepEqual(deriveStatus({ kind, state, error }, conditions), { status, status_reason: reason });
    });
  }

  test('an update asked to roll back: ROLLBACK_COMPLETE once undone, else ROLLBACK_FAILED; a create ignores it', () => {
    assert.equal(deriveStatus({ kind: 'update', state: 'failed', error: 'x', params: { rollback: true, rolled_back: true } }, ready).status, 'ROLLBACK_COMPLETE');
    assert.equal(deriveStatus({ kind: 'update', state: 'failed', error: 'x', params: { rollback: true } }, ready).status, 'ROLLBACK_FAILED');
    assert.equal(deriveStatus({ kind: 'update', state: 'succeeded', error: null, params: { rollback: true } }, ready).status, 'UPDATE_COMPLETE');
    assert.equal(deriveStatus({ kind: 'create', state: 'failed', error: 'x', params: { rollback: true } }, ready).status, 'CREATE_FAILED');
  });
});

test('blockingCondition: the first not True in create order; health never blocks', () => {
  assert.deepEqual(blockingCondition(waiting)?.[0], 'control_plane');
  assert.equal(blockingCondition({ ...ready, health: c('False') }), undefined);
  assert.equal(blockingCondition({}), undefined);
});

test('deriveHealth: null before the first check, then HEALTHY, UNHEALTHY or UNKNOWN', () => {
  assert.equal(deriveHealth(ready), null);
  assert.equal(deriveHealth({ health: c('True') }), 'HEALTHY');
  assert.equal(deriveHealth({ health: c('False') }), 'UNHEALTHY');
  assert.equal(deriveHealth({ health: c('Unknown') }), 'UNKNOWN');
});

test('deriveFaults: only for a failed status; failed node groups and failed conditions', () => {
  const groups = [
    { name: 'default-worker', status: 'CREATE_FAILED', status_reason: 'no host' },
    { name: 'pool', status: 'UPDATE_FAILED', status_reason: null },
    { name: 'ok', status: 'CREATE_COMPLETE', status_reason: null },
  ];
  assert.equal(deriveFaults('CREATE_COMPLETE', failed, groups), undefined);
  assert.deepEqual(deriveFaults('CREATE_FAILED', failed, groups), { 'default-worker': 'no host', pool: '', api_lb: 'Pending: quota of load balancers met' });
});

test('initialConditions: every condition Unknown since now, api_lb only with a load balancer, never health', () => {
  const now = new Date('2026-03-04T05:06:07.000Z');
  const withLb = initialConditions(now, true);
  assert.deepEqual(Object.keys(withLb), ['network', 'security_groups', 'api_lb', 'control_plane', 'workers', 'addons']);
  assert.ok(Object.values(withLb).every((x) => x.status === 'Unknown' && x.reason === 'Pending' && x.since === now.toISOString()));
  assert.equal('api_lb' in initialConditions(now, false), false);
});

test('Magnum’s statuses: the settled ones are every *_COMPLETE but DELETE_COMPLETE; anything else is none', () => {
  assert.ok(SETTLED_STATUSES.includes('CREATE_COMPLETE') && SETTLED_STATUSES.includes('ROLLBACK_COMPLETE'));
  assert.equal(COMPLETE_SET.has('DELETE_COMPLETE'), false);
  assert.equal(COMPLETE_SET.has('UPDATE_FAILED'), false);
  assert.equal(clusterStatus('UPDATE_FAILED'), 'UPDATE_FAILED');
  assert.equal(clusterStatus('MAYBE'), undefined);
});
