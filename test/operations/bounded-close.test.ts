// Closing within one deadline (src/operations/bounded-close.ts): each close gets the time left; what has
// not finished by then is abandoned, its later failure ignored.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { deadline } from '../../src/operations/bounded-close.js';

test('work that settles in time (fulfilled or rejected) is true; nothing to wait for is true', async () => {
  const d = deadline(1000);
  assert.equal(await d.within(sleep(10)), true);
  assert.equal(await d.within(Promise.reject(new Error('closed badly'))), true);
  assert.equal(await d.within(undefined), true);
});

test('work past the deadline is false, as soon as the deadline passes; its later failure is ignored', async () => {
  const d = deadline(100);
  let fail!: (e: Error) => void;
  const never = new Promise((_r, reject) => (fail = reject));
  const start = Date.now();
  assert.equal(await d.within(never), false);
  const took = Date.now() - start;
  assert.ok(took >= 90 && took < 1000, `${took} ms`);
  fail(new Error('too late'));
  await sleep(10);
  assert.equal(d.left(), 0);
  assert.equal(await d.within(sleep(50)), false, 'no time left for anything slower than now');
});

test('one deadline for every close: the time left shrinks', async () => {
  const d = deadline(300);
  await d.within(sleep(120));
  const left = d.left();
  assert.ok(left > 0 && left <= 185, String(left));
});
