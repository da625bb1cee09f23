// The simulators' clock (issue #3 item 6): seeded, replayable delays scaled by one timeScale,
// distributions clamped to their bounds, and timers that close() cancels.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_DELAYS, mulberry32, SeededRandom, SimClock, type DelayDistribution } from '../../../cloudsim/common/clock.js';

const draws = (clock: SimClock, name: string, n: number) => Array.from({ length: n }, () => clock.delayMs(name));

describe('seeded randomness', () => {
  test('same seed → same sequence; another seed → another one', () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const c = mulberry32(43);
    const xs = Array.from({ length: 5 }, () => a());
    assert.deepEqual(Array.from({ length: 5 }, () => b()), xs);
    assert.notDeepEqual(Array.from({ length: 5 }, () => c()), xs);
    for (const x of xs) assert.ok(x >= 0 && x < 1);
  });

  test('uuids and chance() replay too', () => {
    const r1 = new SeededRandom(7);
    const r2 = new SeededRandom(7);
    const u = r1.uuid();
    assert.match(u, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(r2.uuid(), u);
    const flips = (r: SeededRandom) => Array.from({ length: 20 }, () => r.chance(0.3));
    assert.deepEqual(flips(r1), flips(r2));
    assert.equal(new SeededRandom(1).chance(0), false);
    assert.equal(new SeededRandom(1).chance(1), true);
  });
});

describe('delays', () => {
  test('seeded replay: the same seed gives the same delay sequence', () => {
    const one = draws(new SimClock({ seed: 1234, timeScale: 0.01 }), 'octavia.loadbalancer.create', 10);
    const two = draws(new SimClock({ seed: 1234, timeScale: 0.01 }), 'octavia.loadbalancer.create', 10);
    assert.deepEqual(two, one);
    assert.notDeepEqual(draws(new SimClock({ seed: 99, timeScale: 0.01 }), 'octavia.loadbalancer.create', 10), one);
  });

  test('forks are per-name streams: independent of each other, replayable from the base seed', () => {
    const base1 = new SimClock({ seed: 5 });
    const base2 = new SimClock({ seed: 5 });
    const o1 = base1.fork('octavia');
    const c1 = base1.fork('cinder');
    const c2 = base2.fork('cinder');
    draws(o1, 'cinder.volume.create', 7); // octavia's draws do not shift cinder's
    assert.deepEqual(draws(c1, 'cinder.volume.create', 5), draws(c2, 'cinder.volume.create', 5));
    assert.notEqual(o1.seed, c1.seed);
  });

  test('realistic defaults, one timeScale scaling all of them, clamped to [min, max]', () => {
    const real = new SimClock({ seed: 3 });
    const lb = draws(real, 'octavia.loadbalancer.create', 200);
    const d = DEFAULT_DELAYS['octavia.loadbalancer.create'];
    assert.ok(lb.every((x) => x >= d.minMs && x <= d.maxMs));
    const median = [...lb].sort((a, b) => a - b)[100]!;
    assert.ok(median > 70_000 && median < 115_000, `median ${median}`);
    const boot = draws(real, 'nova.server.boot', 200).sort((a, b) => a - b)[100]!;
    assert.ok(boot > 30_000 && boot < 52_000, `boot median ${boot}`);
    const vol = draws(real, 'cinder.volume.create', 200).sort((a, b) => a - b)[100]!;
    assert.ok(vol > 3_500 && vol < 6_500, `volume median ${vol}`);
    // Same seed, scaled: exactly the realistic draws times the scale.
    const fast = draws(new SimClock({ seed: 3, timeScale: 0.001 }), 'octavia.loadbalancer.create', 200);
    fast.forEach((x, i) => assert.ok(Math.abs(x - lb[i]! * 0.001) < 1e-9));
  });

  test('every distribution kind, and overrides', () => {
    const cases: [DelayDistribution, (x: number) => boolean][] = [
      [{ kind: 'fixed', ms: 500 }, (x) => x === 500],
      [{ kind: 'uniform', minMs: 10, maxMs: 20 }, (x) => x >= 10 && x <= 20],
      [{ kind: 'normal', ms: 100, sigmaMs: 1000, minMs: 50, maxMs: 150 }, (x) => x >= 50 && x <= 150],
      [{ kind: 'lognormal', ms: 100, sigma: 3, minMs: 1, maxMs: 1000 }, (x) => x >= 1 && x <= 1000],
    ];
    for (const [d, ok] of cases) {
      const clock = new SimClock({ seed: 11, delays: { x: d } });
      for (const v of draws(clock, 'x', 100)) assert.ok(ok(v), `${d.kind}: ${v}`);
    }
    const clock = new SimClock({ seed: 1 });
    clock.setDelay('cinder.volume.create', { kind: 'fixed', ms: 7 });
    assert.equal(clock.delayMs('cinder.volume.create'), 7);
    assert.throws(() => clock.delayMs('nope'), /no delay named nope/);
    assert.throws(() => new SimClock({ timeScale: -1 }), /bad timeScale/);
  });

  test('the seed is logged (random when not given)', () => {
    const lines: string[] = [];
    const c = new SimClock({ timeScale: 0.5, log: (m) => lines.push(m) });
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, new RegExp(`seed=${c.seed} timeScale=0.5`));
  });
});

describe('timers', () => {
  test('after() fires after the scaled delay; cancel() and close() disarm, forks included', async () => {
    const clock = new SimClock({ seed: 1, timeScale: 0.001, delays: { quick: { kind: 'fixed', ms: 5_000 } } });
    const fired: string[] = [];
    const t0 = Date.now();
    await new Promise<void>((resolve) =>
      clock.after('quick', () => {
        fired.push('a');
        resolve();
      }),
    );
    assert.ok(Date.now() - t0 >= 4);
    assert.equal(clock.pending, 0);
    const t = clock.after(1_000, () => fired.push('cancelled'));
    t.cancel();
    const child = clock.fork('svc');
    child.after(60_000_000, () => fired.push('never'));
    clock.after(60_000_000, () => fired.push('never'));
    assert.equal(clock.pending, 2);
    clock.close();
    assert.equal(clock.pending, 0);
    clock.after(0, () => fired.push('after close'));
    assert.equal(clock.pending, 0);
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(fired, ['a']);
    // Nothing is left armed: node:test would otherwise wait for the hour-long timers.
  });
});
