// The transition table (src/domain/transitions.ts): every operation kind against every Magnum
// status, with and without another operation running, as the user and as the service. A kind or
// status added to the domain without a row here fails the first test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLUSTER_STATUSES, type ClusterStatus } from '../../src/domain/cluster-status.js';
import { OPERATION_KINDS, type OperationKind } from '../../src/domain/operations.js';
import { judge, TRANSITIONS } from '../../src/domain/transitions.js';

const SETTLED: ClusterStatus[] = [
  'CREATE_COMPLETE',
  'UPDATE_COMPLETE',
  'RESUME_COMPLETE',
  'RESTORE_COMPLETE',
  'ROLLBACK_COMPLETE',
  'SNAPSHOT_COMPLETE',
  'CHECK_COMPLETE',
  'ADOPT_COMPLETE',
];
const RETRYABLE: ClusterStatus[] = [...SETTLED, 'UPDATE_FAILED'];

/** Expected: the statuses each kind starts from as the user, and the error (id, HTTP status) elsewhere. */
const EXPECTED: Record<OperationKind, { from: 'any' | 'new' | ClusterStatus[]; error?: [string, number, RegExp]; busyFirst?: boolean }> = {
  create: { from: 'new', error: ['cluster_state_conflict', 409, /^Cluster c is \w+: a create is not possible in that state\.$/] },
  update: { from: RETRYABLE, error: ['cluster_state_conflict', 409, /^Cluster c is \w+: an update is not possible in that state\.$/] },
  resize: { from: RETRYABLE, error: ['cluster_state_conflict', 409, /^Cluster c is \w+: a resize is not possible in that state\.$/] },
  upgrade: { from: RETRYABLE, error: ['cluster_state', 400, /^Upgrading a cluster when status is "\w+" is not supported\.$/] },
  rotate_ca: { from: SETTLED, error: ['cluster_state', 400, /^Updating a cluster when status is "\w+" is not supported\.$/] },
  rotate_credential: { from: RETRYABLE, error: ['cluster_state_conflict', 409, /^Cluster c is \w+: a credential rotation is not possible in that state\.$/] },
  repair: { from: SETTLED, error: ['cluster_state_conflict', 409, /^Cluster c is \w+: a repair is not possible in that state\.$/] },
  nodegroup_create: { from: RETRYABLE, error: ['cluster_not_ready', 409, /^Cluster c is \w+\. Node groups can be changed only/], busyFirst: true },
  nodegroup_update: { from: RETRYABLE, error: ['cluster_not_ready', 409, /^Cluster c is \w+\. Node groups can be changed only/], busyFirst: true },
  nodegroup_delete: { from: RETRYABLE, error: ['cluster_not_ready', 409, /^Cluster c is \w+\. Node groups can be changed only/], busyFirst: true },
  delete: { from: 'any' },
  hibernate: { from: RETRYABLE, error: ['cluster_state_conflict', 409, /^Cluster c is \w+: a hibernation is not possible in that state\.$/] },
  // judged below on a hibernated cluster (the only one it wakes)
  wake: { from: RETRYABLE, error: ['cluster_state_conflict', 409, /^Cluster c is \w+: a wake is not possible in that state\.$/] },
};

/** The subject each kind is judged on in the loops: a wake, a hibernated cluster's. */
const subject = (kind: OperationKind, status: string) => ({ name: 'c', status, ...(kind === 'wake' ? { hibernated: true } : {}) });

const allows = (kind: OperationKind, status: ClusterStatus): boolean => {
  const from = EXPECTED[kind].from;
  return from === 'any' || (from !== 'new' && from.includes(status));
};

test('the table has a row for every kind, and this test an expectation for every kind', () => {
  assert.deepEqual(Object.keys(TRANSITIONS).sort(), [...OPERATION_KINDS].sort());
  assert.deepEqual(Object.keys(EXPECTED).sort(), [...OPERATION_KINDS].sort());
  assert.equal(CLUSTER_STATUSES.length, 18, "Magnum's ClusterStatus has 18 values");
});

for (const kind of OPERATION_KINDS) {
  test(`${kind}: every status, idle`, () => {
    for (const status of CLUSTER_STATUSES) {
      const v = judge(kind, subject(kind, status), []);
      if (allows(kind, status)) {
        assert.equal(v.outcome, 'start', `${kind} from ${status}`);
        continue;
      }
      assert.equal(v.outcome, 'refused', `${kind} from ${status}`);
      if (v.outcome !== 'refused') continue;
      assert.equal(v.why, 'state');
      const [id, http, message] = EXPECTED[kind].error!;
      assert.deepEqual([v.error.id, v.error.status], [id, http], `${kind} from ${status}`);
      assert.match(v.error.message, message);
      assert.ok(v.error.message.includes(status));
    }
  });

  test(`${kind}: while another operation runs`, () => {
    for (const status of CLUSTER_STATUSES) {
      const v = judge(kind, subject(kind, status), ['resize']);
      if (kind === 'delete') {
        assert.equal(v.outcome, 'start', 'a delete overtakes what runs');
        continue;
      }
      if (!allows(kind, status) && !EXPECTED[kind].busyFirst) {
        assert.equal(v.outcome === 'refused' && v.why, 'state', `${kind} from ${status}: the state speaks first`);
        continue;
      }
      assert.equal(v.outcome === 'refused' && v.why, 'busy', `${kind} from ${status}`);
      if (v.outcome === 'refused') {
        assert.deepEqual([v.error.id, v.error.status], ['operation_in_progress', 409]);
        assert.equal(v.error.message, 'Cluster c has an operation in progress (resize). Try again when it has finished.');
      }
    }
  });
}

test('a second delete joins the one that runs', () => {
  assert.deepEqual(judge('delete', { name: 'c', status: 'DELETE_IN_PROGRESS' }, ['delete']), { outcome: 'join' });
  assert.deepEqual(judge('delete', { name: 'c', status: 'DELETE_IN_PROGRESS' }, ['update', 'delete']), { outcome: 'join' });
});

test('a create starts only on the cluster it writes', () => {
  assert.deepEqual(judge('create', { name: 'c', status: 'CREATE_IN_PROGRESS', isNew: true }, []), { outcome: 'start' });
  for (const kind of OPERATION_KINDS.filter((k) => k !== 'create' && k !== 'delete')) {
    assert.equal(judge(kind, { name: 'c', status: 'CREATE_COMPLETE', isNew: true }, []).outcome, 'refused', kind);
  }
});

test('the service starts its operations only on a settled cluster', () => {
  for (const status of CLUSTER_STATUSES) {
    for (const kind of ['repair', 'resize'] as const) {
      const v = judge(kind, { name: 'c', status }, [], 'service');
      assert.equal(v.outcome, SETTLED.includes(status) ? 'start' : 'refused', `${kind} from ${status} by the service`);
    }
  }
  assert.equal(judge('resize', { name: 'c', status: 'UPDATE_FAILED' }, []).outcome, 'start', 'a user may retry a failed update');
});

test('a status that is none of Magnum’s starts nothing but a delete', () => {
  for (const kind of OPERATION_KINDS) {
    const v = judge(kind, { name: 'c', status: 'MYSTERY' }, []);
    assert.equal(v.outcome, kind === 'delete' ? 'start' : 'refused', kind);
  }
});

test('a hibernated cluster: only a wake, a delete, or a hibernate again after a failed one; a wake only when hibernated', () => {
  const asleep = { name: 'c', uuid: 'u-1', status: 'UPDATE_COMPLETE', hibernated: true };
  for (const kind of OPERATION_KINDS.filter((k) => !['create', 'delete', 'wake', 'hibernate'].includes(k))) {
    const v = judge(kind, asleep, []);
    assert.equal(v.outcome, 'refused', kind);
    if (v.outcome !== 'refused') continue;
    assert.deepEqual([v.error.id, v.error.status], ['cluster_hibernated', 409], kind);
    assert.match(v.error.message, /^Cluster c is hibernated: (an?|the) [\w -]+ is not possible while its servers are shelved\. Wake it first \(POST \/v1\/clusters\/u-1\/actions\/wake\)\.$/, kind);
  }
  assert.equal(judge('delete', asleep, []).outcome, 'start');
  assert.equal(judge('wake', asleep, []).outcome, 'start');
  const again = judge('hibernate', asleep, []);
  assert.equal(again.outcome === 'refused' && again.error.message, 'Cluster c is already hibernated.');
  assert.equal(judge('hibernate', { ...asleep, status: 'UPDATE_FAILED' }, []).outcome, 'start', 'a failed hibernation may be asked again');
  const awake = judge('wake', { name: 'c', status: 'UPDATE_COMPLETE' }, []);
  assert.equal(awake.outcome === 'refused' && `${awake.error.id} ${awake.error.status} ${awake.error.message}`, 'cluster_not_hibernated 409 Cluster c is not hibernated: there is nothing to wake.');
  assert.equal(judge('hibernate', { name: 'c', status: 'UPDATE_COMPLETE' }, []).outcome, 'start');
  const busy = judge('hibernate', { name: 'c', status: 'UPDATE_COMPLETE' }, ['resize']);
  assert.equal(busy.outcome === 'refused' && busy.why, 'busy');
});
