// Octavia v2 simulator (spec openstack-apis §4): load balancers and their children with the
// PENDING_* state machine driven by a SimClock. The catalog URL is the bare listen address
// (clients append /v2). Closing the app cancels every pending transition.
import type { FastifyInstance } from 'fastify';
import type { SimClock } from '../common/clock.js';
import { KeystoneAuth, type KeystoneAuthOptions } from '../common/keystone-auth.js';
import { SimError } from '../common/errors.js';
import type { SchemaIssue } from '../common/openapi-validation.js';
import { createServiceApp } from '../common/service-app.js';
import { renderOctaviaError } from './render.js';
import { registerOctaviaRoutes } from './routes.js';
import { registerOctaviaVersions } from './routes-versions.js';
import { OctaviaState, type OctaviaBehaviour, type Quota } from './state.js';
import type { VipAllocator } from './vip.js';

export { OctaviaState } from './state.js';
export type { HealthMonitor, Listener, LoadBalancer, Member, OctaviaBehaviour, Pool, Quota } from './state.js';
export { LocalVipAllocator, type SubnetInfo, type SubnetSource, type VipAllocator, type VipPort, type VipRequest } from './vip.js';

const PYTHON_TYPES: Record<string, string> = { string: 'str', integer: 'int', number: 'float', boolean: 'bool', array: 'list', object: 'dict' };

/** A body the document refuses, in the words of Octavia's WSME types. */
function octaviaSchemaError(issue: SchemaIssue): SimError {
  const value = issue.value === undefined || issue.value === null ? 'None' : typeof issue.value === 'object' ? JSON.stringify(issue.value) : String(issue.value);
  const p = issue.params;
  let why: string;
  switch (issue.keyword) {
    case 'required':
      why = 'Mandatory field missing.';
      break;
    case 'type':
      why = `Wrong type. Expected '<class '${PYTHON_TYPES[[p.type].flat()[0] as string] ?? String(p.type)}'>', got '${typeof issue.value}'`;
      break;
    case 'enum':
      why = `Value should be one of: ${([] as unknown[]).concat(p.allowedValues).join(', ')}`;
      break;
    case 'minimum':
      why = `Value should be greater or equal to ${String(p.limit)}`;
      break;
    case 'maximum':
      why = `Value should be lower or equal to ${String(p.limit)}`;
      break;
    case 'additionalProperties':
      return new SimError(400, `Invalid input for field/attribute ${issue.at.field || 'body'}. Value: '${JSON.stringify(issue.at.value)}'. Unknown attribute: ${issue.field}`);
    default:
      why = `Value ${issue.message}`;
  }
  return new SimError(400, `Invalid input for field/attribute ${issue.field}. Value: '${value}'. ${why}`);
}

export interface OctaviaSimOptions {
  keystone: KeystoneAuthOptions;
  /** Timing and seeded randomness (a realistic, randomly seeded clock when absent); closed with the app. */
  clock?: SimClock;
  /** Where VIP ports come from (default: a local allocator on 10.0.0.0/24). */
  vip?: VipAllocator;
  /** Default per-project quota (-1 = unlimited). */
  defaultQuota?: Partial<Quota>;
  behaviour?: Partial<OctaviaBehaviour>;
}

export interface OctaviaSim {
  app: FastifyInstance;
  state: OctaviaState;
}

export function createOctaviaSim(opts: OctaviaSimOptions): OctaviaSim {
  const state = new OctaviaState({
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.vip ? { vip: opts.vip } : {}),
    ...(opts.defaultQuota ? { defaultQuota: opts.defaultQuota } : {}),
    ...(opts.behaviour ? { behaviour: opts.behaviour } : {}),
  });
  const app = createServiceApp({
    auth: new KeystoneAuth(opts.keystone),
    faults: state.faults,
    renderError: renderOctaviaError,
    // openapi/openstack/octavia.yaml's paths start with /v2/lbaas; the sim also serves the old /v2.0/lbaas.
    requestSchemas: { document: 'octavia', mount: { '/v2/lbaas': '/v2/lbaas', '/v2.0/lbaas': '/v2/lbaas' }, error: octaviaSchemaError },
    publicRoutes: registerOctaviaVersions,
    routes: (scope) => registerOctaviaRoutes(scope, state),
  });
  app.addHook('onClose', async () => state.close());
  return { app, state };
}
