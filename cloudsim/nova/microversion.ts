// Compute microversions (spec openstack-apis §2.1): read from OpenStack-API-Version or the legacy
// X-OpenStack-Nova-API-Version header, 2.1 when absent, echoed on every answer.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SimError } from '../common/errors.js';

export const MIN_VERSION = '2.1';
/** The highest version the simulator claims (that of the OpenAPI document we follow). */
export const MAX_VERSION = '2.96';

export interface Version {
  major: number;
  minor: number;
}

const parse = (v: string): Version => {
  const [major, minor] = v.split('.').map(Number);
  return { major: major!, minor: minor! };
};
const MIN = parse(MIN_VERSION);
const MAX = parse(MAX_VERSION);

const versions = new WeakMap<FastifyRequest, Version>();

/** The request's microversion (set by the hook below). */
export function versionOf(request: FastifyRequest): Version {
  return versions.get(request) ?? MIN;
}

/** At least 2.N? */
export const atLeast = (v: Version, minor: number): boolean => v.major > 2 || (v.major === 2 && v.minor >= minor);

function requested(request: FastifyRequest): string | undefined {
  const std = request.headers['openstack-api-version'];
  if (typeof std === 'string') {
    for (const part of std.split(',')) {
      const [service, value] = part.trim().split(/\s+/);
      if (service?.toLowerCase() === 'compute' && value !== undefined) return value;
    }
  }
  const legacy = request.headers['x-openstack-nova-api-version'];
  return typeof legacy === 'string' ? legacy.trim() : undefined;
}

const cmp = (a: Version, b: Version): number => a.major - b.major || a.minor - b.minor;

/** Parses and checks the version of every request under this scope; echoes it on the answer. */
export function registerMicroversions(scope: FastifyInstance): void {
  scope.addHook('onRequest', async (request, reply) => {
    reply.header('vary', 'OpenStack-API-Version, X-OpenStack-Nova-API-Version');
    const raw = requested(request);
    let v = MIN;
    if (raw !== undefined) {
      if (raw.toLowerCase() === 'latest') v = MAX;
      else if (/^\d+\.(0|[1-9]\d*)$/.test(raw)) v = parse(raw);
      else throw new SimError(400, `API Version String ${raw} is of invalid format. Must be of format MajorNum.MinorNum.`);
    }
    const text = `${v.major}.${v.minor}`;
    reply.header('openstack-api-version', `compute ${text}`);
    reply.header('x-openstack-nova-api-version', text);
    if (cmp(v, MIN) < 0 || cmp(v, MAX) > 0) {
      throw new SimError(406, `Version ${text} is not supported by the API. Minimum is ${MIN_VERSION} and maximum is ${MAX_VERSION}.`);
    }
    versions.set(request, v);
  });
}
