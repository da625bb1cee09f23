// Loopback helpers for tests.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Ports this process has handed out: never given twice. */
const handedOut = new Set<number>();

/**
 * Where the ports come from: 10000-19999, below the kernel's ephemeral range, which every outgoing
 * connection of the machine (and every listen on port 0) draws from, so a port handed out here is not
 * taken meanwhile by the client side of another test's connection; and below the real clouds' fixed
 * ports (20000 and up, test/support/real-openstack/layout.ts).
 */
function range(): [number, number] {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (low > 12_000) return [10_000, Math.min(19_999, low - 1)];
  } catch {
    // not Linux: any port the kernel gives
  }
  return [0, 0];
}
const [LOW, HIGH] = range();

async function bindable(port: number): Promise<number | undefined> {
  const srv = createServer();
  const got = await new Promise<number | undefined>((resolve) => {
    srv.once('error', () => resolve(undefined));
    srv.listen(port, '127.0.0.1', () => resolve((srv.address() as { port: number }).port));
  });
  if (got !== undefined) await new Promise((resolve) => srv.close(resolve));
  return got;
}

/** A loopback port nothing listens on (bound, then released), never one this process was given before. */
export async function closedPort(): Promise<number> {
  for (;;) {
    const port = await bindable(HIGH > 0 ? LOW + Math.floor(Math.random() * (HIGH - LOW + 1)) : 0);
    if (port !== undefined && !handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}
