// A worker process's probes over plain HTTP (WORKER_HEALTH_PORT), for an orchestrator:
// - GET /healthz (liveness) answers 200 while the process runs and its event loop turns; it
//   checks nothing outside, so an unreachable Redis or PostgreSQL never gets workers restarted;
// - GET /readyz (readiness) answers 200 when the worker consumes the queue and reaches Redis and
//   PostgreSQL, 503 with the failing checks otherwise, and 503 from the start of a shutdown.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export const WORKER_PROBES = { liveness: '/healthz', readiness: '/readyz' } as const;

export type CheckResult = 'ok' | 'unavailable';

export interface HealthServer {
  port: number;
  /** Readiness fails from now on (a shutdown has begun). */
  draining(): void;
  close(): Promise<void>;
}

export async function startHealthServer(opts: {
  host: string;
  port: number;
  /** Each check resolves when healthy and rejects otherwise; a check taking over 3 s fails. */
  checks: Record<string, () => Promise<unknown>>;
}): Promise<HealthServer> {
  let draining = false;
  const run = async (): Promise<Record<string, CheckResult>> => {
    const entries = await Promise.all(
      Object.entries(opts.checks).map(async ([name, check]): Promise<[string, CheckResult]> => {
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), 3000)));
        try {
          await Promise.race([check(), timeout]);
          return [name, 'ok'];
        } catch {
          return [name, 'unavailable'];
        } finally {
          clearTimeout(timer);
        }
      }),
    );
    return Object.fromEntries(entries);
  };
  const server = createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify(body));
    };
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, { status: 'method not allowed' });
    if (path === WORKER_PROBES.liveness) return send(200, { status: 'ok' });
    if (path !== WORKER_PROBES.readiness) return send(404, { status: 'not found' });
    if (draining) return send(503, { status: 'draining' });
    void run().then(
      (checks) => {
        const ok = Object.values(checks).every((c) => c === 'ok');
        send(ok ? 200 : 503, { status: ok ? 'ok' : 'unavailable', checks });
      },
      () => send(503, { status: 'unavailable' }),
    );
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    draining: () => void (draining = true),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
