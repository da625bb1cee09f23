// A Server-Sent Events response: takes the socket from Fastify, writes named events, pings to keep
// proxies from closing it, and ends when the client goes, when the caller's token expires or is
// no longer valid (re-checked every `recheckMs`), or when the app closes.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { versionHeaders } from '../../../../domain/microversion.js';

export interface SseOptions {
  /** Re-validates the caller; false ends the stream. */
  stillValid: () => Promise<boolean>;
  recheckMs?: number;
  pingMs?: number;
}

export class SseStream {
  closed = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly onClose: (() => void)[] = [];

  constructor(
    private readonly request: FastifyRequest,
    private readonly reply: FastifyReply,
    opts: SseOptions,
  ) {
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
      // The socket ends with the stream: a server closing never waits on it as a kept-alive connection.
      connection: 'close',
      'x-content-type-options': 'nosniff',
      'x-openstack-request-id': request.id,
      ...(request.versionText ? versionHeaders(request.versionText) : {}),
    });
    raw.write('retry: 2000\n\n');
    request.raw.on('close', () => this.close());
    const expiresIn = request.auth.expiresAt - Date.now();
    this.timers.push(setTimeout(() => this.end('expired', { reason: 'token expired' }), Math.max(0, Math.min(expiresIn, 2 ** 31 - 1))));
    this.timers.push(setInterval(() => this.comment('ping'), opts.pingMs ?? 15_000));
    this.timers.push(
      setInterval(() => {
        opts.stillValid().then(
          (ok) => {
            if (!ok) this.end('expired', { reason: 'token no longer valid' });
          },
          () => undefined,
        );
      }, opts.recheckMs ?? 30_000),
    );
    for (const t of this.timers) t.unref();
  }

  /** Registers cleanup run once when the stream closes. */
  finally(fn: () => void): void {
    if (this.closed) fn();
    else this.onClose.push(fn);
  }

  send(event: string, data: unknown, id?: string | number): void {
    if (this.closed) return;
    const lines = [`event: ${event}`];
    if (id !== undefined) lines.push(`id: ${id}`);
    lines.push(`data: ${JSON.stringify(data)}`);
    this.reply.raw.write(`${lines.join('\n')}\n\n`);
  }

  comment(text: string): void {
    if (!this.closed) this.reply.raw.write(`: ${text}\n\n`);
  }

  end(event?: string, data?: unknown): void {
    if (this.closed) return;
    if (event) this.send(event, data ?? {});
    this.reply.raw.end();
    this.close();
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    for (const fn of this.onClose.splice(0)) fn();
    if (!this.reply.raw.writableEnded) this.reply.raw.end();
  }
}
