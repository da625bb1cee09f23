// One simulated cluster's object store (cloudsim/kube/store.ts): uid, creationTimestamp and generation
// across writes, a resourceVersion that moves only on a change, copies out of get/list, and the
// controllers' copy-free reads (peek, peekList), which hand out the stored objects frozen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ObjectStore, type Obj } from '../../../cloudsim/kube/store.js';

const POD = { group: '', resource: 'pods' };
const pod = (namespace: string, name: string, image = 'a'): Obj => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace }, spec: { containers: [{ name: 'c', image }] } });
const at = (namespace: string, name: string) => ({ ...POD, namespace, name });

test('writes keep uid and creationTimestamp; the resourceVersion moves only on a change; generation follows the spec', () => {
  let now = Date.parse('2026-11-28T00:00:00Z');
  const store = new ObjectStore(() => now);
  const first = store.write(at('kube-system', 'x'), pod('kube-system', 'x'));
  assert.equal(first.metadata.generation, 1);
  now += 60_000;
  assert.equal(store.save(at('kube-system', 'x'), pod('kube-system', 'x')), false, 'the same object again changes nothing');
  assert.equal(store.resourceVersion, first.metadata.resourceVersion);
  assert.equal(store.save(at('kube-system', 'x'), pod('kube-system', 'x', 'b')), true);
  const second = store.get(at('kube-system', 'x'))!;
  assert.deepEqual([second.metadata.uid, second.metadata.creationTimestamp, second.metadata.generation], [first.metadata.uid, first.metadata.creationTimestamp, 2]);
  assert.ok(Number(second.metadata.resourceVersion) > Number(first.metadata.resourceVersion));
});

test('get, list, write and delete hand out copies: changing one leaves the store as it was', () => {
  const store = new ObjectStore(() => 0);
  const written = store.write(at('default', 'a'), pod('default', 'a'));
  (written.spec as { containers: { image: string }[] }).containers[0]!.image = 'changed';
  const listed = store.list('', 'pods');
  listed[0]!.metadata.name = 'changed';
  const got = store.get(at('default', 'a'))!;
  (got.spec as { containers: { image: string }[] }).containers.push({ image: 'more' });
  assert.deepEqual(store.get(at('default', 'a'))!.spec, { containers: [{ name: 'c', image: 'a' }] });
  const gone = store.delete(at('default', 'a'))!;
  gone.metadata.name = 'mutable';
  assert.equal(store.has(at('default', 'a')), false);
});

test('peek and peekList give the stored objects, sorted by namespace and name, frozen to the leaves', () => {
  const store = new ObjectStore(() => 0);
  for (const [ns, name] of [['kube-system', 'b'], ['default', 'z'], ['kube-system', 'a']] as const) store.write(at(ns, name), pod(ns, name));
  const all = store.peekList('', 'pods');
  assert.deepEqual(all.map((p) => `${p.metadata.namespace}/${p.metadata.name}`), ['default/z', 'kube-system/a', 'kube-system/b']);
  assert.deepEqual(store.peekList('', 'pods', 'kube-system').map((p) => p.metadata.name), ['a', 'b']);
  assert.equal(store.peek(at('default', 'z')), all[0], 'the same object, no copy');
  assert.throws(() => {
    all[0]!.metadata.name = 'x';
  }, TypeError);
  assert.throws(() => {
    (all[1]!.spec as { containers: { image: string }[] }).containers[0]!.image = 'x';
  }, TypeError);
  // A restored store's objects are frozen too.
  const copy = new ObjectStore(() => 0);
  copy.restore(store.snapshot());
  assert.ok(Object.isFrozen(copy.peek(at('default', 'z'))!.metadata));
  assert.deepEqual(copy.list('', 'pods'), store.list('', 'pods'));
});
