// A Redis of a test's own (redis-server on a free loopback port, no persistence), to stop, freeze
// (SIGSTOP: connected but silent, the worst outage) and start again without touching the shared one.
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { closedPort } from './net.js';

export interface PrivateRedis {
  port: number;
  url: string;
  /** Kills it (connections refused until start()). */
  stop(): Promise<void>;
  /** Starts it again on the same port (empty). */
  start(): Promise<void>;
  /** Whether it answers PING now (false while stopped or frozen). */
  up(): Promise<boolean>;
  /** SIGSTOP: the port accepts connections, nothing answers. */
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

async function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.setTimeout(500);
    s.on('connect', () => s.write('PING\r\n'));
    s.on('data', (d) => {
      s.destroy();
      resolve(d.toString().startsWith('+PONG'));
    });
    s.on('error', () => resolve(false));
    s.on('timeout', () => {
      s.destroy();
      resolve(false);
    });
  });
}

export async function privateRedis(): Promise<PrivateRedis> {
  const port = await closedPort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    for (let i = 0; i < 100; i++) {
      if (await answers(port)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`redis-server on port ${port} did not start`);
  };
  const stop = async () => {
    const c = child;
    child = undefined;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGCONT');
    c.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop,
    start,
    up: () => answers(port),
    freeze: () => child?.kill('SIGSTOP'),
    thaw: () => child?.kill('SIGCONT'),
    close: stop,
  };
}
