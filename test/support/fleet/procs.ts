// One process of the compiled service (`node <dist>/src/main.js <mode>`), as an orchestrator runs
// it: its environment, its output in a log file, a readiness URL, and SIGTERM, SIGKILL and start
// again. CPU time and memory are read from /proc.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export type Mode = 'api' | 'worker' | 'sim' | 'migrate';

export interface ProcSpec {
  /** A name for the logs: api-1, worker-3, sim. */
  name: string;
  mode: Mode;
  env: Record<string, string>;
  /** Answers 2xx once the process serves. */
  readyUrl?: string;
}

/** utime + stime of a live process in ms (clock ticks of 10 ms); 0 when it is gone. */
export function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

/** Resident memory now and at its peak (MB); zeros when the process is gone. */
export function memoryMb(pid: number): { rss: number; peak: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
    return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
  } catch {
    return { rss: 0, peak: 0 };
  }
}

export class Proc {
  child: ChildProcess | undefined;
  /** Every start of the process (one per life), with how it ended. */
  readonly lives: { pid: number; startedAt: number; readyAt?: number; endedAt?: number; how?: string; cpuMs?: number }[] = [];
  readonly log: string;

  constructor(
    readonly main: string,
    readonly spec: ProcSpec,
    logDir: string,
  ) {
    this.log = join(logDir, `${spec.name}.log`);
  }

  get pid(): number | undefined {
    return this.running ? this.child!.pid : undefined;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Starts the process; resolves once its ready URL answers 2xx (or at once without one). */
  async start(timeoutMs = 60_000): Promise<void> {
    const fd = openSync(this.log, 'a');
    const child = spawn(process.execPath, [this.main, this.spec.mode], { env: { PATH: process.env.PATH!, ...this.spec.env }, stdio: ['ignore', fd, fd] });
    closeSync(fd);
    this.child = child;
    const life: Proc['lives'][number] = { pid: child.pid!, startedAt: Date.now() };
    this.lives.push(life);
    // The last CPU reading before it goes (a process's /proc entry goes with it).
    const sampler = setInterval(() => {
      const c = cpuMs(child.pid!);
      if (c > 0) life.cpuMs = c;
    }, 1000);
    sampler.unref();
    child.once('exit', (code, signal) => {
      clearInterval(sampler);
      life.endedAt = Date.now();
      life.how ??= signal ? signal : `exit ${code}`;
    });
    if (this.spec.readyUrl) await this.ready(timeoutMs);
    life.readyAt = Date.now();
  }

  /** Up and answering its ready URL since its last start. */
  get isReady(): boolean {
    return this.running && this.lives.at(-1)?.readyAt !== undefined;
  }

  async ready(timeoutMs = 60_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      if (!this.running) throw new Error(`${this.spec.name} exited (${this.lives.at(-1)?.how}) before it was ready: ${this.tail()}`);
      const ok = await fetch(this.spec.readyUrl!, { signal: AbortSignal.timeout(2000) }).then((r) => r.ok, () => false);
      if (ok) return;
      if (Date.now() > end) throw new Error(`${this.spec.name} not ready within ${timeoutMs} ms: ${this.tail()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Runs the process to its end (migrate); rejects on a non-zero exit. */
  async runToEnd(timeoutMs = 120_000): Promise<void> {
    await this.start();
    const code = await this.exited(timeoutMs);
    if (code !== 'exit 0') throw new Error(`${this.spec.name}: ${code}: ${this.tail()}`);
  }

  private async exited(timeoutMs: number): Promise<string> {
    const child = this.child!;
    if (child.exitCode !== null || child.signalCode !== null) return this.lives.at(-1)!.how ?? '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    await new Promise((r) => child.once('exit', r));
    clearTimeout(timer);
    return this.lives.at(-1)!.how ?? '';
  }

  /** SIGKILL: no shutdown work at all. */
  async kill(): Promise<void> {
    if (!this.running) return;
    this.lives.at(-1)!.how = 'SIGKILL';
    this.child!.kill('SIGKILL');
    await this.exited(10_000);
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves with how it ended. */
  async stop(graceMs = 30_000): Promise<string> {
    if (!this.running) return this.lives.at(-1)?.how ?? 'not running';
    this.child!.kill('SIGTERM');
    return this.exited(graceMs);
  }

  /** The last lines of its log, for error messages. */
  tail(lines = 15): string {
    try {
      return readFileSync(this.log, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  }

  /** Its log's JSON lines (other lines skipped). */
  jsonLines(): Record<string, unknown>[] {
    const out: Record<string, unknown>[] = [];
    for (const line of readFileSync(this.log, 'utf8').split('\n')) {
      if (!line.startsWith('{')) continue;
      try {
        out.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // A line cut by SIGKILL.
      }
    }
    return out;
  }

  /** CPU time of every life so far (ms). */
  cpuTotalMs(): number {
    return this.lives.reduce((a, l) => a + ((l.endedAt === undefined && this.pid === l.pid ? cpuMs(l.pid) : l.cpuMs) ?? 0), 0);
  }
}
