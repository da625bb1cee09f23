// Remembers the path patterns of every route so an unknown method on a known path is a 405,
// not a 404 (Fastify itself answers 404 for both).
import type { FastifyInstance } from 'fastify';

interface Matcher {
  patterns: RegExp[];
  pathExists(path: string): boolean;
}

const matchers = new WeakMap<FastifyInstance, Matcher>();

function toRegExp(url: string): RegExp {
  const body = url
    .replace(/\/+$/, '')
    .split('/')
    .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg === '*' ? '.*' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${body}/?$`);
}

export function trackRoutes(app: FastifyInstance): void {
  const m: Matcher = {
    patterns: [],
    pathExists(path) {
      return this.patterns.some((p) => p.test(path));
    },
  };
  matchers.set(app, m);
  app.addHook('onRoute', (route) => {
    m.patterns.push(toRegExp(route.url));
  });
}

export function routeMatcher(app: FastifyInstance): Matcher {
  const m = matchers.get(app);
  if (!m) throw new Error('trackRoutes() was not called on this instance');
  return m;
}
