// Loopback helpers for tests.
import { createServer } from 'node:net';

/** A loopback port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as { port: number };
  await new Promise((resolve) => srv.close(resolve));
  return port;
}
