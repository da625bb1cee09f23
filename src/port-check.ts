// Before a process opens anything, every port its mode will listen on is tried: a taken one stops the start
// with one line naming the port and the variable that moves it (src/process/startup-error.ts prints it),
// instead of a listener failing halfway, after the migrations, with EADDRINUSE. A port asked for twice is
// bad configuration; a value that is not a port too (simListenFromEnv and the config say so).
import { createServer } from 'node:net';
import { SIM_PORT_VARIABLES, simListenFromEnv } from './simulator-seam.js';
import { ConfigError } from './config.js';
import type { Mode } from './process/modes.js';

export interface PortClaim {
  /** The environment variable that moves the port. */
  variable: string;
  host: string;
  port: number;
}

/** A port the start cannot have. */
export class PortInUse extends Error {}

function portVar(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new ConfigError(`${name} must be an integer between 0 and 65535, got "${raw}"`);
  return n;
}

/**
 * The ports a mode listens on: the API's (api, all), the worker's probes when WORKER_HEALTH_PORT is set
 * (worker, all unless RUN_WORKER=false), the simulator's (sim, and all without KEYSTONE_URL). Port 0
 * (any free port) claims nothing.
 */
export function portsOf(mode: Mode, env: NodeJS.ProcessEnv = process.env): PortClaim[] {
  const claims: PortClaim[] = [];
  const apiHost = env.API_HOST || '127.0.0.1';
  if (mode === 'api' || mode === 'all') claims.push({ variable: 'API_PORT', host: apiHost, port: portVar(env, 'API_PORT', 9511) });
  const worker = mode === 'worker' || (mode === 'all' && !/^(0|false|no|off)$/i.test(env.RUN_WORKER ?? ''));
  if (worker) claims.push({ variable: 'WORKER_HEALTH_PORT', host: env.WORKER_HEALTH_HOST || '127.0.0.1', port: portVar(env, 'WORKER_HEALTH_PORT', 0) });
  if (mode === 'sim' || (mode === 'all' && !env.KEYSTONE_URL)) {
    const sim = simListenFromEnv(env);
    claims.push({ variable: SIM_PORT_VARIABLES.keystone, host: sim.host, port: sim.keystonePort });
    for (const [service, port] of Object.entries(sim.ports)) claims.push({ variable: SIM_PORT_VARIABLES[service as keyof typeof sim.ports], host: sim.host, port });
  }
  return claims.filter((c) => c.port !== 0);
}

/** Opens and closes a listener on host:port; the error code when that fails. */
function tryListen(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'EUNKNOWN'));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(undefined)));
  });
}

/** Throws when a port is asked for twice (ConfigError) or cannot be listened on (PortInUse), naming the variables. */
export async function checkPorts(claims: PortClaim[]): Promise<void> {
  const seen = new Map<number, string>();
  for (const c of claims) {
    const other = seen.get(c.port);
    if (other) throw new ConfigError(`port ${c.port} is asked for twice (${other} and ${c.variable}): set one of them to another port`);
    seen.set(c.port, c.variable);
  }
  const failures = await Promise.all(claims.map((c) => tryListen(c.host, c.port)));
  const busy = claims.filter((_, i) => failures[i] === 'EADDRINUSE');
  if (busy.length === 1) throw new PortInUse(`port ${busy[0]!.port} (${busy[0]!.variable}) is in use: stop what listens there or set ${busy[0]!.variable}`);
  if (busy.length > 1) {
    const list = busy.map((c) => `${c.port} (${c.variable})`).join(', ');
    throw new PortInUse(`ports ${list} are in use (another npm start?): stop what listens there or set ${busy.map((c) => c.variable).join(', ')}`);
  }
  const i = failures.findIndex((f) => f !== undefined);
  if (i < 0) return;
  const { port, variable, host } = claims[i]!;
  if (failures[i] === 'EACCES') throw new PortInUse(`port ${port} (${variable}) may not be opened by this user: set ${variable} to a port above 1023`);
  throw new PortInUse(`port ${port} (${variable}) cannot be opened on ${host} (${failures[i]}): set ${variable}, or the host it listens on`);
}

/** The mode's ports, checked (see checkPorts). */
export const assertPortsFree = (mode: Mode, env: NodeJS.ProcessEnv = process.env): Promise<void> => checkPorts(portsOf(mode, env));
