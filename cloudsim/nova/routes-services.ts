// GET /os-services (admins, as Nova's policy has it; Horizon's system information page): the controller's
// nova-conductor and nova-scheduler in the `internal` zone, then a nova-compute per simulated host in its
// zone, all enabled and up; filtered by `host` and `binary`; ids are numbers until 2.52, UUIDs from 2.53,
// `forced_down` from 2.11.
import type { FastifyInstance } from 'fastify';
import { SimError } from '../common/errors.js';
import { one, type RawQuery } from '../common/query.js';
import { callerOf } from '../common/service-app.js';
import { stableUuid } from './hosts.js';
import { atLeast, versionOf } from './microversion.js';
import type { NovaState } from './state.js';

const novaTime = (ms: number) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000');

export function registerServiceRoutes(scope: FastifyInstance, state: NovaState): void {
  scope.get('/v2.1/os-services', async (request) => {
    if (!callerOf(request).isAdmin) throw new SimError(403, "Policy doesn't allow os_compute_api:os-services:list to be performed.");
    const v = versionOf(request);
    const q = request.query as RawQuery;
    const host = one(q, 'host');
    const binary = one(q, 'binary');
    const all = [
      { binary: 'nova-conductor', host: 'controller', zone: 'internal' },
      { binary: 'nova-scheduler', host: 'controller', zone: 'internal' },
      ...state.behaviour.zones.flatMap((z) => z.hosts.map((h) => ({ binary: 'nova-compute', host: h, zone: z.name }))),
    ];
    const updated = novaTime(state.clock.now());
    return {
      services: all
        .map((s, i) => ({
          id: atLeast(v, 53) ? stableUuid('service', `${s.binary}@${s.host}`) : i + 1,
          ...s,
          status: 'enabled',
          state: 'up',
          updated_at: updated,
          disabled_reason: null,
          ...(atLeast(v, 11) ? { forced_down: false } : {}),
        }))
        .filter((s) => (host === undefined || s.host === host) && (binary === undefined || s.binary === binary)),
    };
  });
}
