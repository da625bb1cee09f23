// The HTTPS side of a simulated apiserver: one listener (on loopback unless the simulator listens elsewhere), serving a certificate the
// cluster CA signed, asking every client for a certificate and checking it, on each request,
// against the CAs the control planes trust now (so a CA dropped from the trust set stops working
// at once, kept-alive connections included). A connection's certificate is parsed and its signature
// checked once per trust set; its validity period on every request.
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import type { ApiAnswer, ApiRequest, KubeUser } from './rest.js';
import { signedByAny, userOf, validAt } from './tls.js';
import type { KeyPair } from './userdata.js';

export interface ListenerIdentity {
  serving: KeyPair;
  /** The CAs whose client certificates are accepted (PEM). */
  trusted: string[];
}

const MAX_BODY = 8 * 1024 * 1024;

export class ApiListener {
  private server: Server | undefined;
  private trusted: X509Certificate[] = [];
  /** Each connection's client certificate, checked against one trust set (`trusted` replaced: checked again). */
  private readonly checked = new WeakMap<TLSSocket, { trusted: X509Certificate[]; cert: X509Certificate | undefined; user: KubeUser | undefined }>();
  port: number | undefined;

  constructor(private readonly handle: (req: ApiRequest) => ApiAnswer) {}

  /** Listens on `host` (an ephemeral port); resolves with the port. */
  async start(id: ListenerIdentity, host = '127.0.0.1'): Promise<number> {
    this.trusted = id.trusted.map((p) => new X509Certificate(p));
    const server = createServer({ key: id.serving.key, cert: id.serving.cert, ca: id.trusted, requestCert: true, rejectUnauthorized: false }, (req, res) => {
      this.serve(req, res);
    });
    server.keepAliveTimeout = 5_000;
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, host, () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    return this.port;
  }

  /** A new serving certificate or trust set, for new connections; requests are checked against `trusted` from now on. */
  update(id: ListenerIdentity): void {
    this.trusted = id.trusted.map((p) => new X509Certificate(p));
    this.server?.setSecureContext({ key: id.serving.key, cert: id.serving.cert, ca: id.trusted });
  }

  /** Connections open now (kept-alive ones included): what a client left open shows here. */
  connections(): Promise<number> {
    const server = this.server;
    if (!server) return Promise.resolve(0);
    return new Promise((resolve, reject) => server.getConnections((e, n) => (e ? reject(e) : resolve(n))));
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.port = undefined;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  private userOf(req: IncomingMessage): KubeUser | undefined {
    const socket = req.socket as TLSSocket;
    let c = this.checked.get(socket);
    if (c?.trusted !== this.trusted) {
      const peer = socket.getPeerCertificate();
      const cert = peer?.raw ? new X509Certificate(peer.raw) : undefined;
      const signed = cert !== undefined && signedByAny(cert, this.trusted);
      c = { trusted: this.trusted, cert, user: signed ? userOf(peer.subject as unknown as Record<string, string | string[] | undefined>) : undefined };
      this.checked.set(socket, c);
    }
    return c.cert && c.user && validAt(c.cert, Date.now()) ? c.user : undefined;
  }

  private serve(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) req.destroy();
      else chunks.push(c);
    });
    req.on('end', () => {
      let answer: ApiAnswer;
      try {
        answer = this.handle({
          method: req.method ?? 'GET',
          url: req.url ?? '/',
          contentType: req.headers['content-type'],
          body: Buffer.concat(chunks).toString('utf8'),
          user: this.userOf(req),
        });
      } catch (e) {
        answer = { status: 500, body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: (e as Error).message, reason: 'InternalError', code: 500 } };
      }
      const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      res.writeHead(answer.status, { 'content-type': answer.contentType ?? 'application/json', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-cache, private' });
      res.end(text);
    });
  }
}
