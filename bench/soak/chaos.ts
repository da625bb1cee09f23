// What goes wrong in the soak besides the cloud's faults: a worker process killed with SIGKILL
// every few seconds and started again shortly after (as an orchestrator's restart policy would),
// one API process killed and started again, PostgreSQL and Redis each restarted once, at set
// points of the run's progress. Any process that exits without being killed is a crash: counted,
// logged, and started again. Its choices come from its own seeded stream.
import { SeededRandom } from '../../cloudsim/common/clock.js';
import type { Fleet, Proc } from '../../test/support/fleet/index.js';

export interface ChaosOptions {
  /** Between two worker kills (ms), drawn uniformly. */
  killEveryMs: [number, number];
  /** From a kill to the start again (ms). */
  restartAfterMs: [number, number];
  /** Share of the run's operations accepted at which PostgreSQL, Redis and an API process go down (0..1; undefined: never). */
  postgresAt?: number;
  redisAt?: number;
  apiAt?: number;
  /** How long PostgreSQL and Redis stay down (ms). */
  downMs: number;
}

export interface ChaosReport {
  workerKills: number;
  workerStarts: number;
  apiKills: number;
  postgresRestarts: { atS: number; downMs: number }[];
  redisRestarts: { atS: number; downMs: number }[];
  /** Processes that exited on their own (name, how, last log lines). */
  crashes: { name: string; how: string; tail: string }[];
  /** Starts that failed and were tried again (a worker started while PostgreSQL was down exits 1: expected). */
  failedStarts: number;
  /** From a worker's start to its readiness (ms): median and longest. */
  workerStartMs: { median: number; max: number };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Chaos {
  readonly report: ChaosReport = { workerKills: 0, workerStarts: 0, apiKills: 0, postgresRestarts: [], redisRestarts: [], crashes: [], failedStarts: 0, workerStartMs: { median: 0, max: 0 } };
  private readonly rnd: SeededRandom;
  private stopped = false;
  private readonly pending = new Set<Promise<unknown>>();
  private readonly killedByUs = new Set<number>();
  /** Processes being started by us (an exit during a start is the start's failure, not a crash). */
  private readonly starting = new Set<Proc>();
  private readonly crashed = new Set<number>();
  private loop: Promise<void> | undefined;
  private watcher: NodeJS.Timeout | undefined;
  private readonly fired = { postgres: false, redis: false, api: false };

  constructor(
    private readonly fleet: Fleet,
    private readonly opts: ChaosOptions,
    seed: number,
    private readonly began = Date.now(),
  ) {
    this.rnd = new SeededRandom(seed * 9_000_011 + 17);
  }

  private between([a, b]: [number, number]): number {
    return a + this.rnd.random() * (b - a);
  }

  start(): void {
    this.loop = this.killWorkers();
    // Crashes: a process gone that nobody killed is started again, and counted.
    this.watcher = setInterval(() => {
      for (const p of [...this.fleet.apis, ...this.fleet.workers]) {
        const life = p.lives.at(-1);
        if (!life || p.running || this.starting.has(p) || this.killedByUs.has(life.pid) || life.endedAt === undefined || this.crashed.has(life.pid)) continue;
        this.crashed.add(life.pid);
        this.report.crashes.push({ name: p.spec.name, how: life.how ?? '?', tail: p.tail(20) });
        this.track(this.startAgain(p));
      }
    }, 500);
    this.watcher.unref();
  }

  /** Called as the run goes on (share of its operations accepted): brings the restarts due by then. */
  progress(done: number): void {
    const o = this.opts;
    if (o.postgresAt !== undefined && !this.fired.postgres && done >= o.postgresAt) {
      this.fired.postgres = true;
      this.track(this.fleet.pg.restart(o.downMs, 'immediate').then(() => this.report.postgresRestarts.push({ atS: this.secs(this.fleet.pg.restarts.at(-1)!.at), downMs: this.fleet.pg.restarts.at(-1)!.downMs })));
    }
    if (o.redisAt !== undefined && !this.fired.redis && done >= o.redisAt) {
      this.fired.redis = true;
      this.track(this.fleet.redis.restart(o.downMs, 'SIGKILL').then(() => this.report.redisRestarts.push({ atS: this.secs(this.fleet.redis.restarts.at(-1)!.at), downMs: this.fleet.redis.restarts.at(-1)!.downMs })));
    }
    if (o.apiAt !== undefined && !this.fired.api && done >= o.apiAt) {
      this.fired.api = true;
      const api = this.fleet.apis[Math.floor(this.rnd.random() * this.fleet.apis.length)]!;
      this.track(this.kill(api).then(async () => {
        this.report.apiKills++;
        await sleep(this.between(this.opts.restartAfterMs));
        await this.startAgain(api);
      }));
    }
  }

  private secs(at: number): number {
    return +((at - this.began) / 1000).toFixed(1);
  }

  private track(p: Promise<unknown>): void {
    const q = p.catch((e: Error) => this.report.crashes.push({ name: 'chaos', how: e.message, tail: '' })).finally(() => this.pending.delete(q));
    this.pending.add(q);
  }

  private async kill(p: Proc): Promise<void> {
    const pid = p.pid;
    if (pid === undefined) return;
    this.killedByUs.add(pid);
    await p.kill();
  }

  /** Starts a process again until it is ready (it exits while PostgreSQL or Redis is down: tried again). */
  private async startAgain(p: Proc): Promise<void> {
    if (this.starting.has(p)) return;
    this.starting.add(p);
    try {
      for (let i = 0; ; i++) {
        try {
          await p.start(60_000);
          if (p.spec.mode === 'worker') this.report.workerStarts++;
          return;
        } catch (e) {
          this.report.failedStarts++;
          const pid = p.lives.at(-1)?.pid;
          if (pid !== undefined) this.killedByUs.add(pid);
          if (p.running) await this.kill(p);
          if (i >= 120) throw e;
          await sleep(1000);
        }
      }
    } finally {
      this.starting.delete(p);
    }
  }

  private async killWorkers(): Promise<void> {
    while (!this.stopped) {
      await sleep(this.between(this.opts.killEveryMs));
      if (this.stopped) break;
      // Ready ones only: killing a worker while it starts would mostly measure how slowly Node starts.
      const live = this.fleet.workers.filter((w) => w.isReady && !this.starting.has(w));
      // Never the last one standing: a deployment down to no workers proves nothing more.
      if (live.length < 2) continue;
      const w = live[Math.floor(this.rnd.random() * live.length)]!;
      await this.kill(w);
      this.report.workerKills++;
      const after = this.between(this.opts.restartAfterMs);
      this.track(sleep(after).then(() => this.startAgain(w)));
    }
  }

  /** Stops killing; waits for restarts under way and for every process to be up again. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
    while (this.pending.size > 0) await Promise.all([...this.pending]);
    clearInterval(this.watcher);
    for (const p of [...this.fleet.apis, ...this.fleet.workers]) if (!p.running) await this.startAgain(p);
    const starts = this.fleet.workers.flatMap((w) => w.lives.filter((l) => l.readyAt !== undefined).map((l) => l.readyAt! - l.startedAt)).sort((a, b) => a - b);
    this.report.workerStartMs = { median: starts[Math.floor(starts.length / 2)] ?? 0, max: starts.at(-1) ?? 0 };
  }
}
