// Operational endpoints: liveness, readiness, Prometheus metrics, the OpenAPI document.
import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ping } from '../../db/data-source.js';

const Check = Type.Object({ status: Type.String(), checks: Type.Optional(Type.Record(Type.String(), Type.String())) });
const hidden = { hide: true } as const;

export const opsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, redis, metrics, config } = app.services;

  app.get('/healthz', { config: { public: true }, schema: { ...hidden, response: { 200: Check } } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { config: { public: true }, schema: { ...hidden, response: { 200: Check, 503: Check } } }, async (request, reply) => {
    const probe = async (fn: () => Promise<unknown>) => {
      try {
        await fn();
        return 'ok';
      } catch (e) {
        request.log.warn({ reason: (e as Error).message }, 'readiness probe failed');
        return 'unavailable';
      }
    };
    const checks = {
      database: await probe(() => ping(db)),
      redis: await probe(() => redis.ping()),
      keystone: await probe(async () => {
        const res = await fetch(config.keystone.authUrl, { signal: AbortSignal.timeout(3000) });
        await res.body?.cancel();
        if (res.status >= 500) throw new Error(`HTTP ${res.status}`);
      }),
    };
    const ok = Object.values(checks).every((c) => c === 'ok');
    return reply.code(ok ? 200 : 503).send({ status: ok ? 'ok' : 'unavailable', checks });
  });

  app.get('/metrics', { config: { public: true }, schema: hidden }, async (_request, reply) => {
    reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });

  app.get('/v1/openapi.json', { config: { public: true }, schema: hidden }, async () => app.swagger());
};
