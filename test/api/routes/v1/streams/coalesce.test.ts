// The streams' read pacing (src/api/routes/v1/streams/coalesce.ts), on mocked timers: a lone change
// is read at once, a burst is one read, changes during a read make one more read a gap after the
// last began, never two reads at a time; stop() and a failed read end it.
import { afterEach, beforeEach, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { Coalescer } from '../../../../../src/api/routes/v1/streams/coalesce.js';

const GAP = 40;

beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 }));
afterEach(() => mock.timers.reset());

/** Lets the read's promise callbacks run. */
const settle = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

/** A read that records when it started and finishes when told. */
function reader() {
  const starts: number[] = [];
  const finish: (() => void)[] = [];
  let active = 0;
  let overlapped = false;
  const read = () =>
    new Promise<void>((resolve) => {
      starts.push(Date.now());
      active++;
      if (active > 1) overlapped = true;
      finish.push(() => {
        active--;
        resolve();
      });
    });
  return { read, starts, done: async () => (finish.shift()!(), settle()), overlapped: () => overlapped };
}

test('a lone change is read on the next turn, not after the gap', async () => {
  const r = reader();
  const c = new Coalescer(r.read, GAP, assert.fail);
  c.poke();
  assert.equal(r.starts.length, 0, 'not synchronously: one transaction’s notifications go together');
  mock.timers.tick(0);
  assert.deepEqual(r.starts, [1_000_000]);
  await r.done();
  // A quiet spell longer than the gap: the next change goes at once too.
  mock.timers.tick(GAP * 3);
  c.poke();
  mock.timers.tick(0);
  assert.deepEqual(r.starts, [1_000_000, 1_000_000 + GAP * 3]);
  await r.done();
});

test('a burst of changes is one read; changes during a read make one more, a gap after the first began', async () => {
  const r = reader();
  const c = new Coalescer(r.read, GAP, assert.fail);
  for (let i = 0; i < 10; i++) c.poke();
  mock.timers.tick(0);
  assert.equal(r.starts.length, 1);
  mock.timers.tick(5);
  for (let i = 0; i < 10; i++) c.poke();
  mock.timers.tick(GAP);
  assert.equal(r.starts.length, 1, 'never two reads at a time');
  await r.done();
  mock.timers.tick(0);
  assert.equal(r.starts.length, 2, 'the gap had passed when the read ended: the next goes at once');
  assert.equal(r.starts[1]! - r.starts[0]!, GAP + 5);
  await r.done();
  // A change soon after a read: it waits until the gap since that read's start has passed.
  mock.timers.tick(10);
  c.poke();
  mock.timers.tick(GAP - 11);
  assert.equal(r.starts.length, 2);
  mock.timers.tick(1);
  assert.equal(r.starts.length, 3);
  assert.equal(r.starts[2]! - r.starts[1]!, GAP);
  await r.done();
  assert.equal(r.overlapped(), false);
});

test('stop() drops what is pending; a failed read stops and reports', async () => {
  const r = reader();
  const c = new Coalescer(r.read, GAP, assert.fail);
  c.poke();
  c.stop();
  mock.timers.tick(GAP * 2);
  c.poke();
  mock.timers.tick(GAP * 2);
  assert.equal(r.starts.length, 0);

  const errors: string[] = [];
  let reads = 0;
  const failing = new Coalescer(
    () => {
      reads++;
      return Promise.reject(new Error('database gone'));
    },
    GAP,
    (e) => errors.push(e.message),
  );
  failing.poke();
  mock.timers.tick(0);
  await settle();
  assert.deepEqual(errors, ['database gone']);
  failing.poke();
  mock.timers.tick(GAP * 2);
  await settle();
  assert.equal(reads, 1, 'no read after the failure');
});
