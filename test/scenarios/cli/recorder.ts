// A recording reverse proxy put in the catalog in front of the API: what the real CLI puts on the
// wire (method, path as sent, headers, body bytes), so a test can assert the client's quirks
// before replaying the same bytes against the service.
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  /** The request target exactly as sent (path and query). */
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface Recorder {
  /** http://127.0.0.1:<port>, to register as the container-infra endpoint (plus /v1). */
  url: string;
  /** Everything recorded since the last take(); clears the record. */
  take(): Recorded[];
  close(): Promise<void>;
}

export async function startRecorder(target: string): Promise<Recorder> {
  const upstream = new URL(target);
  let recorded: Recorded[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      recorded.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const up = httpRequest(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
        (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        },
      );
      up.on('error', (e) => res.writeHead(502).end(String(e)));
      up.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    take() {
      const out = recorded;
      recorded = [];
      return out;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
