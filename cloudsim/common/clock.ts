// Simulated time for the service simulators (issue #3 item 6): every asynchronous transition
// (server boot, load balancer provisioning, volume creation, ...) waits a delay drawn from a
// configurable distribution, scaled by ONE `timeScale` (1 = realistic, 0.01 in the demo and the
// tests turns ~90 s into ~0.9 s), and drawn from a SEEDED PRNG so that a failing run can be replayed.
//
// Design choice: transitions are driven by real timers (not computed lazily on read), so a
// resource changes state even when nobody polls it, as on a real cloud. Every timer is owned by
// the SimClock that armed it and is cancelled by `close()`; the services' close hooks call it, so
// nothing keeps the process alive after the simulators stop (`pending` tells how many are armed).
//
// Each service draws from its own stream (`fork(name)`), seeded from the base seed and the name,
// so the delays of one service do not depend on how its calls interleave with another's.

/** mulberry32: a tiny, fast 32-bit PRNG; deterministic for a given seed. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a of a string, to derive the seed of a named stream. */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** A seeded source of pseudo-random numbers. */
export class SeededRandom {
  private readonly next: () => number;
  private spare: number | undefined;

  constructor(readonly seed: number) {
    this.next = mulberry32(seed);
  }

  /** Uniform in [0, 1). */
  random(): number {
    return this.next();
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return p > 0 && this.next() < p;
  }

  /** Standard normal (Box-Muller). */
  gaussian(): number {
    if (this.spare !== undefined) {
      const s = this.spare;
      this.spare = undefined;
      return s;
    }
    let u = 0;
    while (u === 0) u = this.next();
    const v = this.next();
    const r = Math.sqrt(-2 * Math.log(u));
    this.spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  }

  /** A deterministic RFC 4122 v4-shaped UUID. */
  uuid(): string {
    const hex: string[] = [];
    for (let i = 0; i < 16; i++) hex.push(Math.floor(this.next() * 256).toString(16).padStart(2, '0'));
    hex[6] = ((parseInt(hex[6]!, 16) & 0x0f) | 0x40).toString(16);
    hex[8] = ((parseInt(hex[8]!, 16) & 0x3f) | 0x80).toString(16);
    const h = hex.join('');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }
}

/**
 * A delay distribution in real-world milliseconds (before `timeScale`).
 * - fixed: always `ms`.
 * - uniform: in [minMs, maxMs].
 * - normal: mean `ms`, standard deviation `sigmaMs`.
 * - lognormal: median `ms`, `sigma` the standard deviation of the log (0.3 ≈ ±35 %).
 * The result is clamped to [minMs, maxMs] when given.
 */
export type DelayDistribution =
  | { kind: 'fixed'; ms: number }
  | { kind: 'uniform'; minMs: number; maxMs: number }
  | { kind: 'normal'; ms: number; sigmaMs: number; minMs?: number; maxMs?: number }
  | { kind: 'lognormal'; ms: number; sigma: number; minMs?: number; maxMs?: number };

/** The transitions the simulators time, with realistic defaults (amphora LBs boot a VM). */
export const DEFAULT_DELAYS = {
  'nova.server.boot': { kind: 'lognormal', ms: 40_000, sigma: 0.3, minMs: 15_000, maxMs: 180_000 },
  'nova.server.delete': { kind: 'lognormal', ms: 5_000, sigma: 0.3, minMs: 1_000, maxMs: 30_000 },
  // shelve: power off, snapshot and offload (shelved_offload_time 0); unshelve: schedule and spawn again
  'nova.server.shelve': { kind: 'lognormal', ms: 20_000, sigma: 0.3, minMs: 5_000, maxMs: 90_000 },
  'nova.server.unshelve': { kind: 'lognormal', ms: 30_000, sigma: 0.3, minMs: 10_000, maxMs: 120_000 },
  'octavia.loadbalancer.create': { kind: 'lognormal', ms: 90_000, sigma: 0.3, minMs: 45_000, maxMs: 300_000 },
  'octavia.loadbalancer.update': { kind: 'lognormal', ms: 5_000, sigma: 0.4, minMs: 1_000, maxMs: 30_000 },
  'octavia.loadbalancer.delete': { kind: 'lognormal', ms: 15_000, sigma: 0.3, minMs: 5_000, maxMs: 60_000 },
  'cinder.volume.create': { kind: 'lognormal', ms: 5_000, sigma: 0.3, minMs: 1_000, maxMs: 30_000 },
  'cinder.volume.delete': { kind: 'lognormal', ms: 3_000, sigma: 0.3, minMs: 500, maxMs: 20_000 },
  'designate.zone.create': { kind: 'lognormal', ms: 3_000, sigma: 0.3, minMs: 1_000, maxMs: 20_000 },
  'designate.zone.update': { kind: 'lognormal', ms: 2_000, sigma: 0.3, minMs: 500, maxMs: 15_000 },
  'designate.zone.delete': { kind: 'lognormal', ms: 3_000, sigma: 0.3, minMs: 1_000, maxMs: 20_000 },
  'designate.recordset.update': { kind: 'lognormal', ms: 2_000, sigma: 0.3, minMs: 500, maxMs: 15_000 },
  'manila.share.create': { kind: 'lognormal', ms: 8_000, sigma: 0.3, minMs: 2_000, maxMs: 60_000 },
  'manila.share.delete': { kind: 'lognormal', ms: 5_000, sigma: 0.3, minMs: 1_000, maxMs: 30_000 },
  // simulated Kubernetes (cloudsim/kube): kubeadm init until the apiserver serves, a join from
  // discovery to the registered Node, kubeadm's discovery poll and its timeout per `kubeadm join`
  'kube.init': { kind: 'lognormal', ms: 60_000, sigma: 0.3, minMs: 30_000, maxMs: 180_000 },
  // a node whose image lacks Kubernetes installs it (packages or release downloads) before kubeadm runs
  'kube.install': { kind: 'lognormal', ms: 90_000, sigma: 0.3, minMs: 40_000, maxMs: 300_000 },
  'kube.join': { kind: 'lognormal', ms: 30_000, sigma: 0.3, minMs: 10_000, maxMs: 120_000 },
  'kube.join.retry': { kind: 'fixed', ms: 5_000 },
  'kube.join.discovery': { kind: 'fixed', ms: 300_000 },
} satisfies Record<string, DelayDistribution>;

export type DelayName = keyof typeof DEFAULT_DELAYS | (string & {});

export interface SimClockOptions {
  /** Multiplies every delay: 1 = realistic, 0.01 = a hundred times faster. Default 1. */
  timeScale?: number;
  /** The PRNG seed; a random one (logged) when absent. */
  seed?: number;
  /** Overrides of DEFAULT_DELAYS, or new named delays. */
  delays?: Record<string, DelayDistribution>;
  /** Where the seed is reported (so a run can be replayed); silent when absent. */
  log?: (message: string) => void;
}

/** A cancellable timer armed by a SimClock. */
export interface SimTimer {
  cancel(): void;
}

function draw(d: DelayDistribution, rnd: SeededRandom): number {
  let ms: number;
  switch (d.kind) {
    case 'fixed':
      return d.ms;
    case 'uniform':
      return d.minMs + rnd.random() * (d.maxMs - d.minMs);
    case 'normal':
      ms = d.ms + d.sigmaMs * rnd.gaussian();
      break;
    case 'lognormal':
      ms = d.ms * Math.exp(d.sigma * rnd.gaussian());
      break;
  }
  if (d.minMs !== undefined) ms = Math.max(d.minMs, ms);
  if (d.maxMs !== undefined) ms = Math.min(d.maxMs, ms);
  return Math.max(0, ms);
}

/** A clock with seeded delays and owned, cancellable timers. */
export class SimClock {
  readonly timeScale: number;
  readonly seed: number;
  readonly random: SeededRandom;
  private readonly delays: Record<string, DelayDistribution>;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly children: SimClock[] = [];
  private closed = false;

  constructor(opts: SimClockOptions = {}) {
    this.timeScale = opts.timeScale ?? 1;
    if (!(this.timeScale >= 0)) throw new Error(`SimClock: bad timeScale ${opts.timeScale}`);
    this.seed = (opts.seed ?? Math.floor(Math.random() * 2 ** 32)) >>> 0;
    this.random = new SeededRandom(this.seed);
    this.delays = { ...DEFAULT_DELAYS, ...opts.delays };
    opts.log?.(`cloudsim clock: seed=${this.seed} timeScale=${this.timeScale} (set the seed to replay this run)`);
  }

  /** A clock with the same settings drawing from its own stream, derived from the seed and `name`; closed with this one. */
  fork(name: string): SimClock {
    const child = new SimClock({ timeScale: this.timeScale, seed: (this.seed ^ hash32(name)) >>> 0, delays: this.delays });
    this.children.push(child);
    return child;
  }

  /** Replaces a named delay distribution (e.g. to make one transition slow in a test). */
  setDelay(name: DelayName, d: DelayDistribution): void {
    this.delays[name] = d;
  }

  now(): number {
    return Date.now();
  }

  /** The next delay of the named distribution, scaled, in milliseconds. */
  delayMs(name: DelayName): number {
    const d = this.delays[name];
    if (!d) throw new Error(`SimClock: no delay named ${name}`);
    return draw(d, this.random) * this.timeScale;
  }

  /** Runs `fn` after the named delay (or a number of real-world ms, also scaled). */
  after(delay: DelayName | number, fn: () => void): SimTimer {
    const ms = typeof delay === 'number' ? delay * this.timeScale : this.delayMs(delay);
    if (this.closed) return { cancel() {} };
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, Math.round(ms));
    this.timers.add(t);
    return {
      cancel: () => {
        clearTimeout(t);
        this.timers.delete(t);
      },
    };
  }

  /** Timers armed and not yet fired, here and in the forks. */
  get pending(): number {
    return this.timers.size + this.children.reduce((n, c) => n + c.pending, 0);
  }

  /** Cancels every timer (here and in the forks); later `after` calls do nothing. */
  close(): void {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const c of this.children) c.close();
  }
}
