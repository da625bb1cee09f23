// GET /v1/mservices (spec §3.9): the worker processes, from the heartbeats they keep in Redis
// (workers/heartbeat.ts). A worker is up while its last heartbeat is younger than
// SERVICE_DOWN_TIME; entries silent for ten times that are dropped.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { servicesKey, type Heartbeat } from '../../../operations/queue.js';
import { enforce } from '../../../domain/policy.js';
import { errorResponses, Nullable, Timestamp } from '../../schemas/common.js';
import { isoSeconds } from '../../views.js';

const PRUNE_AFTER_DOWN_TIMES = 10;

/** Deletes a field only if it still holds what was read (a worker that beat meanwhile stays). */
const DELETE_IF_UNCHANGED = `
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0
`;

export const MService = Type.Object(
  {
    id: Type.Integer(),
    host: Type.String(),
    binary: Type.String(),
    state: Type.Unsafe<'up' | 'down'>({ type: 'string', enum: ['up', 'down'], description: 'up while the last heartbeat is younger than SERVICE_DOWN_TIME' }),
    report_count: Type.Integer(),
    disabled: Type.Boolean(),
    disabled_reason: Nullable(Type.String()),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'MService' },
);

export const MServiceList = Type.Object({ mservices: Type.Array(Type.Ref(MService)) }, { $id: 'MServiceList' });

function parse(raw: string): Heartbeat | undefined {
  try {
    const b = JSON.parse(raw) as Heartbeat;
    return Number.isInteger(b.id) && !Number.isNaN(Date.parse(b.updated_at)) && !Number.isNaN(Date.parse(b.started_at)) ? b : undefined;
  } catch {
    return undefined;
  }
}

export const mservicesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { redis, config } = app.services;
  const key = servicesKey(config.queuePrefix);

  app.get(
    '/mservices',
    { schema: { tags: ['mservices'], summary: 'List the worker services (admin)', response: { 200: Type.Ref(MServiceList), ...errorResponses(400, 401, 403) } } },
    async (request) => {
      enforce(request.auth, 'magnum-service:get_all');
      const now = Date.now();
      const downMs = config.serviceDownTime * 1000;
      const live: Heartbeat[] = [];
      const stale: [string, string][] = [];
      for (const [field, raw] of Object.entries(await redis.hgetall(key))) {
        const b = parse(raw);
        if (b && now - Date.parse(b.updated_at) <= PRUNE_AFTER_DOWN_TIMES * downMs) live.push(b);
        else stale.push([field, raw]);
      }
      await Promise.all(stale.map(([field, raw]) => redis.eval(DELETE_IF_UNCHANGED, 1, key, field, raw)));
      live.sort((a, b) => a.id - b.id);
      return {
        mservices: live.map((b) => ({
          id: b.id,
          host: b.host,
          binary: b.binary,
          state: now - Date.parse(b.updated_at) <= downMs ? ('up' as const) : ('down' as const),
          report_count: b.report_count,
          disabled: false,
          disabled_reason: null,
          created_at: isoSeconds(new Date(b.started_at)),
          updated_at: isoSeconds(new Date(b.updated_at)),
        })),
      };
    },
  );
};
