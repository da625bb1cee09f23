// Availability zones and the host aggregates that make them (spec openstack-apis §2.2 availability_zone):
// GET /os-availability-zone for any user (zone names and state, `hosts` null), GET
// /os-availability-zone/detail for admins (each zone's hosts and their nova-compute service, plus
// Nova's `internal` zone with the conductor and scheduler), GET /os-aggregates[/{id}] for admins:
// one aggregate per zone but the default one, with the zone in its metadata, as an operator makes them.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SimError } from '../common/errors.js';
import { callerOf } from '../common/service-app.js';
import { stableUuid, type ComputeZone } from './hosts.js';
import { atLeast, versionOf } from './microversion.js';
import type { NovaState } from './state.js';

const denied = (rule: string) => new SimError(403, `Policy doesn't allow os_compute_api:${rule} to be performed.`);

/** Nova's timestamps: ISO 8601 with microseconds, no zone. */
const novaTime = (ms: number) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000');

interface Aggregate {
  id: number;
  zone: ComputeZone;
}

/** Every zone but the first (the default zone, whose hosts are in no aggregate) is an aggregate. */
const aggregatesOf = (zones: ComputeZone[]): Aggregate[] => zones.slice(1).map((zone, i) => ({ id: i + 1, zone }));

export function registerZoneRoutes(scope: FastifyInstance, state: NovaState): void {
  const since = novaTime(state.clock.now());
  const service = () => ({ available: true, active: true, updated_at: novaTime(state.clock.now()) });

  scope.get('/v2.1/os-availability-zone', async () => ({
    availabilityZoneInfo: state.behaviour.zones.map((z) => ({ zoneName: z.name, zoneState: { available: true }, hosts: null })),
  }));
  scope.get('/v2.1/os-availability-zone/detail', async (request) => {
    if (!callerOf(request).isAdmin) throw denied('os-availability-zone:detail');
    const zones = state.behaviour.zones.map((z) => ({
      zoneName: z.name,
      zoneState: { available: true },
      hosts: Object.fromEntries(z.hosts.map((h) => [h, { 'nova-compute': service() }])),
    }));
    const internal = { zoneName: 'internal', zoneState: { available: true }, hosts: { controller: { 'nova-conductor': service(), 'nova-scheduler': service() } } };
    return { availabilityZoneInfo: [internal, ...zones] };
  });

  const render = (request: FastifyRequest, a: Aggregate) => ({
    availability_zone: a.zone.name,
    created_at: since,
    deleted: false,
    deleted_at: null,
    hosts: [...a.zone.hosts],
    id: a.id,
    metadata: { availability_zone: a.zone.name },
    name: a.zone.name,
    updated_at: null,
    ...(atLeast(versionOf(request), 41) ? { uuid: stableUuid('aggregate', a.zone.name) } : {}),
  });
  scope.get('/v2.1/os-aggregates', async (request) => {
    if (!callerOf(request).isAdmin) throw denied('os-aggregates:index');
    return { aggregates: aggregatesOf(state.behaviour.zones).map((a) => render(request, a)) };
  });
  scope.get<{ Params: { id: string } }>('/v2.1/os-aggregates/:id', async (request) => {
    if (!callerOf(request).isAdmin) throw denied('os-aggregates:show');
    const a = aggregatesOf(state.behaviour.zones).find((x) => String(x.id) === request.params.id);
    if (!a) throw new SimError(404, `Aggregate ${request.params.id} could not be found.`);
    return { aggregate: render(request, a) };
  });
}
