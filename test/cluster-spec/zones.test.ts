// Availability zones of nodes: the labels as the one parser reads them, which zones each group's nodes are
// spread over (control planes, worker groups, a group's own zone), the zone of a node by its index, and the
// etcd quorum a spread of control planes keeps or loses when one zone goes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InvalidLabelError } from '../../src/domain/errors.js';
import { parseClusterSpec } from '../../src/cluster-spec/parse.js';
import { freeIndexes, groupZones, heldIndexes, ownZone, quorumLoss, zoneOf, zonesNamed } from '../../src/cluster-spec/zones.js';
import { input } from '../support/spec-fixtures.js';

const nodes = (labels: Record<string, string>) => parseClusterSpec(input({ labels })).spec.nodes;

test('the zone labels parse into the spec; bad values are 400s naming the label', () => {
  const n = nodes({ availability_zone: 'nova', control_plane_availability_zones: 'az-1, az-2,az-3', worker_availability_zones: 'az-2,az-3' });
  assert.deepEqual([n.availabilityZone, n.controlPlaneZones, n.workerZones], ['nova', ['az-1', 'az-2', 'az-3'], ['az-2', 'az-3']]);
  assert.deepEqual([nodes({}).controlPlaneZones, nodes({}).workerZones, nodes({ worker_availability_zones: '' }).workerZones], [[], [], []]);
  const rejects = (labels: Record<string, string>, name: string, pattern: RegExp) =>
    assert.throws(() => parseClusterSpec(input({ labels })), (e: unknown) => e instanceof InvalidLabelError && e.label === name && pattern.test(e.message));
  rejects({ control_plane_availability_zones: 'az-1,az-1' }, 'control_plane_availability_zones', /Zone az-1 is listed twice/);
  rejects({ worker_availability_zones: 'az-1,,az-2' }, 'worker_availability_zones', /without an empty one/);
  rejects({ worker_availability_zones: 'az-1,zone two' }, 'worker_availability_zones', /'zone two': .*no spaces/);
  rejects({ availability_zone: 'a'.repeat(64) }, 'availability_zone', /at most 63/);
});

test('zonesNamed lists every zone a set of labels names, with its label', () => {
  assert.deepEqual(zonesNamed({ availability_zone: 'nova', control_plane_availability_zones: 'az-2,az-3', kube_tag: 'v1.35.1' }), [
    { label: 'availability_zone', zone: 'nova' },
    { label: 'control_plane_availability_zones', zone: 'az-2' },
    { label: 'control_plane_availability_zones', zone: 'az-3' },
  ]);
  assert.deepEqual(zonesNamed({ availability_zone: '' }), []);
  assert.throws(() => zonesNamed({ worker_availability_zones: 'a,a' }), (e: unknown) => e instanceof InvalidLabelError && e.label === 'worker_availability_zones');
});

test('which zones a group spreads over', () => {
  const cluster = { availability_zone: 'nova', control_plane_availability_zones: 'az-1,az-2,az-3', worker_availability_zones: 'az-2,az-3' };
  const n = nodes(cluster);
  const cases: [string, { role: string; labels: Record<string, string> | null }, Record<string, string>, string[]][] = [
    ['control planes: their list', { role: 'master', labels: cluster }, cluster, ['az-1', 'az-2', 'az-3']],
    ['a default worker group (the cluster\'s labels): the workers\' list', { role: 'worker', labels: cluster }, cluster, ['az-2', 'az-3']],
    ['a group given a zone of its own: that zone', { role: 'worker', labels: { ...cluster, availability_zone: 'az-9' } }, cluster, ['az-9']],
    ['a group with labels but no zone: the workers\' list', { role: 'worker', labels: {} }, cluster, ['az-2', 'az-3']],
  ];
  for (const [what, group, labels, want] of cases) assert.deepEqual(groupZones(n, group, labels), want, what);
  // Without lists, availability_zone places every node; without any label, Nova places them.
  const one = { availability_zone: 'az-2' };
  assert.deepEqual(groupZones(nodes(one), { role: 'master', labels: one }, one), ['az-2']);
  assert.deepEqual(groupZones(nodes(one), { role: 'worker', labels: one }, one), ['az-2']);
  assert.deepEqual(groupZones(nodes({}), { role: 'worker', labels: {} }, {}), []);
});

test('a node\'s zone follows its index, round-robin', () => {
  const zones = ['a', 'b', 'c'];
  assert.deepEqual([0, 1, 2, 3, 4, 5].map((i) => zoneOf(zones, i)), ['a', 'b', 'c', 'a', 'b', 'c']);
  assert.equal(zoneOf([], 4), undefined);
});

test('etcd quorum when one zone is lost', () => {
  // [control planes, zones, the zone whose loss loses quorum (and its members) or none]
  const cases: [number, string[], [string, number] | undefined][] = [
    [3, ['a', 'b', 'c'], undefined],
    [5, ['a', 'b', 'c'], undefined],
    [7, ['a', 'b', 'c'], undefined],
    [3, ['a', 'b', 'c', 'd'], undefined],
    [4, ['a', 'b', 'c', 'd'], undefined],
    [3, ['a', 'b'], ['a', 2]],
    [5, ['a', 'b'], ['a', 3]],
    [2, ['a', 'b'], ['a', 1]],
    [4, ['a', 'b', 'c'], ['a', 2]],
    [1, ['a', 'b', 'c'], undefined],
    [3, ['a'], undefined],
  ];
  for (const [count, zones, want] of cases) {
    const loss = quorumLoss(count, zones);
    assert.deepEqual(loss && [loss.zone, loss.members], want, `${count} over ${zones.join(',')}`);
  }
  assert.equal(quorumLoss(3, ['a', 'b'])!.quorum, 2);
});

test('node indexes: recorded ones kept, unrecorded ones (older servers) given the lowest free ones by name, new nodes the lowest free', () => {
  const held = heldIndexes([{ name: 'c', index: null }, { name: 'x', index: 1 }, { name: 'a', index: null }, { name: 'y', index: 4 }]);
  assert.deepEqual([...held.entries()].sort(), [['a', 0], ['c', 2], ['x', 1], ['y', 4]]);
  assert.deepEqual(freeIndexes(held.values(), 3), [3, 5, 6]);
  // A removed node frees its index: its replacement lands in its zone.
  assert.deepEqual(freeIndexes([0, 2], 1), [1]);
});

test('a group\'s own zone: its availability_zone when it differs from the cluster\'s (checked like the label)', () => {
  const cluster = { availability_zone: 'nova' };
  assert.equal(ownZone({ role: 'worker', labels: { availability_zone: 'nova' } }, cluster), undefined, 'the cluster\'s, inherited');
  assert.equal(ownZone({ role: 'worker', labels: null }, cluster), undefined);
  assert.equal(ownZone({ role: 'worker', labels: { availability_zone: '' } }, cluster), undefined, 'blank: none of its own');
  assert.equal(ownZone({ role: 'worker', labels: { availability_zone: ' az-2 ' } }, cluster), 'az-2');
  assert.equal(ownZone({ role: 'worker', labels: { availability_zone: 'az-2' } }, {}), 'az-2');
  assert.throws(() => ownZone({ role: 'worker', labels: { availability_zone: 'az 2' } }, cluster), /availability zone name/);
});
