// Compresses large JSON answers when the client asks (Accept-Encoding: br or gzip), as
// @fastify/compress would, with node:zlib: a list of a thousand templates is ~1 MB of JSON and
// under 100 KB on the wire. Small answers, streams (text/event-stream) and anything already
// encoded go as they are; Vary gains Accept-Encoding (after what it says already). Only the portal's answers
// (a browser with its session cookie, no token): any other client, a Keystone token's (the openstack CLI, Horizon, the SDKs)
// gets Magnum's answers byte for byte, headers included.
import { brotliCompress, constants, gzip } from 'node:zlib';
import { promisify } from 'node:util';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { cookies, SESSION_COOKIE } from '../portal/guards.js';

/** Below this many bytes compressing costs more than it saves. */
export const COMPRESS_THRESHOLD = 1024;

const br = promisify(brotliCompress);
const gz = promisify(gzip);

/** The encoding to answer in: br, else gzip, when the client accepts it (a q of 0 refuses). */
export function chooseEncoding(accept: string | undefined): 'br' | 'gzip' | undefined {
  if (!accept) return undefined;
  const offered = new Map<string, number>();
  for (const part of accept.toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((x) => x !== undefined);
    if (name) offered.set(name.trim(), q === undefined ? 1 : Number(q));
  }
  const ok = (e: string) => (offered.get(e) ?? offered.get('*') ?? 0) > 0;
  return ok('br') ? 'br' : ok('gzip') ? 'gzip' : undefined;
}

export function registerCompression(app: FastifyInstance): void {
  app.addHook('onSend', async (request: FastifyRequest, reply, payload) => {
    const type = String(reply.getHeader('content-type') ?? '');
    if (!type.startsWith('application/json') || reply.getHeader('content-encoding') || request.method === 'HEAD') return payload;
    if (request.headers['x-auth-token'] !== undefined || !cookies(request)[SESSION_COOKIE]) return payload;
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
    if (body.length < COMPRESS_THRESHOLD) return payload;
    const encoding = chooseEncoding(request.headers['accept-encoding']);
    const vary = String(reply.getHeader('vary') ?? '');
    if (!/(^|,)\s*accept-encoding\s*(,|$)/i.test(vary)) reply.header('vary', vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding');
    if (!encoding) return payload;
    const out = encoding === 'br' ? await br(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }) : await gz(body, { level: 6 });
    reply.header('content-encoding', encoding);
    reply.removeHeader('content-length');
    return out;
  });
}
