// GET /v2.0/availability_zones (extension availability_zone): one entry per zone and resource kind
// (network for the DHCP agents, router for the L3 agents), filtered, sorted and paged like every
// Neutron collection; any authenticated user may list them.
import type { FastifyInstance } from 'fastify';
import { SimError } from '../common/errors.js';
import { listCollection, type Attribute } from './collection.js';
import type { NeutronState } from './state.js';

interface Zone {
  name: string;
  resource: 'network' | 'router';
  state: 'available';
}

const ATTRIBUTES: Record<string, Attribute<Zone>> = {
  name: { get: (z) => z.name, kind: 'string' },
  resource: { get: (z) => z.resource, kind: 'string' },
  state: { get: (z) => z.state, kind: 'string' },
};

export function registerZoneRoutes(scope: FastifyInstance, state: NeutronState): void {
  scope.get('/v2.0/availability_zones', async (request) =>
    listCollection(request, {
      name: 'availability_zones',
      attributes: ATTRIBUTES,
      id: (z) => `${z.name}/${z.resource}`,
      visible: state.zones.flatMap((name) => (['network', 'router'] as const).map((resource) => ({ name, resource, state: 'available' as const }))),
      render: (z) => ({ name: z.name, resource: z.resource, state: z.state }),
      notFound: (id) => new SimError(404, `AvailabilityZone ${id} could not be found.`, 'AvailabilityZoneNotFound'),
    }),
  );
}
