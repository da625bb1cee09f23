// Loopback helpers for tests.
import { createServer } from 'node:net';

/** Ports this process has handed out: the kernel may give a released port again at once. */
const handedOut = new Set<number>();

/** A loopback port nothing listens on (bound, then released), never one this process was given before. */
export async function closedPort(): Promise<number> {
  for (;;) {
    const srv = createServer();
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
    const { port } = srv.address() as { port: number };
    await new Promise((resolve) => srv.close(resolve));
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}
