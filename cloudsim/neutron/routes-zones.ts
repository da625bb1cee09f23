// GET /v2.0/availability_zones (extension availability_zone): one entry per zone and resource kind
// (network for the DHCP agents, router for the L3 agents), filtered, sorted and paged like every
// Neutron collection; any authenticated user may list them.
import type { FastifyInstance } from 'fastify';
import { SimError } from '../common/errors.js';
import { IndexedMap } from '../common/indexed-map.js';
import { listCollection, type Attribute } from './collection.js';
import type { NeutronState } from './state.js';

interface Zone {
  /** `name/resource` (the marker of a page). */
  id: string;
  name: string;
  resource: 'network' | 'router';
  state: 'available';
}

const ATTRIBUTES: Record<string, Attribute<Zone>> = {
  name: { get: (z) => z.name, kind: 'string' },
  resource: { get: (z) => z.resource, kind: 'string' },
  state: { get: (z) => z.state, kind: 'string' },
};

/** A few entries, made for each call. */
function zonesOf(state: NeutronState): IndexedMap<Zone> {
  const zones = new IndexedMap<Zone>({});
  for (const name of state.zones) {
    for (const resource of ['network', 'router'] as const) zones.set(`${name}/${resource}`, { id: `${name}/${resource}`, name, resource, state: 'available' });
  }
  return zones;
}

export function registerZoneRoutes(scope: FastifyInstance, state: NeutronState): void {
  scope.get('/v2.0/availability_zones', async (request) => {
    const zones = zonesOf(state);
    return listCollection(request, {
      name: 'availability_zones',
      attributes: ATTRIBUTES,
      items: zones,
      indexed: {},
      visible: () => true,
      scope: () => zones.values(),
      render: (z) => ({ name: z.name, resource: z.resource, state: z.state }),
      notFound: (id) => new SimError(404, `AvailabilityZone ${id} could not be found.`, 'AvailabilityZoneNotFound'),
    });
  });
}
