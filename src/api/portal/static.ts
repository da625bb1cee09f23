// The built portal (portal/dist) under /ui/: hashed assets cached for a year and immutable,
// index.html never cached, and every other /ui/ path (a deep link such as /ui/p/<project>/clusters/<uuid>)
// answered with index.html so the app loads and routes itself; each in brotli or gzip when the
// client accepts it (precompressed by portal/build.ts). Security headers on all of it.
import { existsSync, statSync } from 'node:fs';
import { join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';
import { errors } from '../../domain/errors.js';

const here = fileURLToPath(new URL('.', import.meta.url));
/** The repository: above src/api/portal/ (sources under tsx) or above dist/src/api/portal/ (compiled: `npm start`, the image). */
const repoRoot = /[/\\]dist[/\\]src[/\\]api[/\\]portal[/\\]?$/.test(here) ? join(here, '../../../..') : join(here, '../../..');
export const DEFAULT_PORTAL_DIST = join(repoRoot, 'portal', 'dist');

/** No inline script or style, nothing from elsewhere, never framed. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

export const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
};

/** Hashed names (`name-<8+ base32/hex chars>.<ext>`) are safe to cache forever. */
const HASHED = /-[A-Za-z0-9]{8,}\.(js|css|woff2|svg|png|map)$/;

export async function portalStatic(app: FastifyInstance, opts: { distDir?: string }): Promise<void> {
  const dist = opts.distDir ?? DEFAULT_PORTAL_DIST;
  // The build writes a .br and a .gz beside each file: sent by Accept-Encoding, with Vary.
  await app.register(fastifyStatic, { root: dist, serve: false, index: false, preCompressed: true });

  app.addHook('onSend', async (request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    if (path === '/ui' || path.startsWith('/ui/') || path.startsWith('/portal/')) reply.headers(SECURITY_HEADERS);
  });

  const built = () => existsSync(join(dist, 'index.html'));

  function index(reply: FastifyReply): FastifyReply {
    if (!built()) throw errors.portalNotBuilt();
    reply.header('cache-control', 'no-cache');
    return reply.type('text/html; charset=utf-8').sendFile('index.html', { cacheControl: false, etag: true, lastModified: false });
  }

  async function serve(request: FastifyRequest<{ Params: { '*': string } }>, reply: FastifyReply) {
    const rel = normalize(request.params['*'] ?? '').replace(/^([/\\])+/, '');
    if (rel.startsWith('..') || rel.includes(`${sep}..`)) throw errors.routeNotFound();
    if (rel.startsWith(`assets${sep}`) || rel.startsWith('assets/')) {
      const file = join(dist, rel);
      if (!existsSync(file) || !statSync(file).isFile()) throw errors.routeNotFound();
      if (HASHED.test(rel)) return reply.sendFile(rel, { maxAge: 31_536_000_000, immutable: true, cacheControl: true });
      reply.header('cache-control', 'no-cache');
      return reply.sendFile(rel, { cacheControl: false });
    }
    return index(reply);
  }

  const route = { config: { public: true }, schema: { hide: true } } as const;
  // The router ignores trailing slashes: /ui/ is /ui.
  app.get('/ui', route, (_request, reply) => index(reply));
  app.get('/ui/*', route, serve);
}
