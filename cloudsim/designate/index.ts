// Designate v2 simulator (DNS as a service): zones and recordsets with the PENDING → ACTIVE life
// of a real pool, project scoping with X-Auth-All-Projects / X-Auth-Sudo-Project-ID for admins,
// quotas, and Designate's error envelope. The catalog URL (type `dns`) is the bare listen address;
// clients discover /v2 from the version document.
import type { FastifyInstance } from 'fastify';
import type { SimClock } from '../common/clock.js';
import { KeystoneAuth, type KeystoneAuthOptions } from '../common/keystone-auth.js';
import { jsonschemaMessage } from '../common/schema-messages.js';
import { createServiceApp } from '../common/service-app.js';
import { dnsErrors, renderDesignateError } from './errors.js';
import { registerQuotaRoutes } from './routes-quotas.js';
import { registerRecordSetRoutes } from './routes-recordsets.js';
import { registerVersionRoutes } from './routes-versions.js';
import { registerZoneRoutes } from './routes-zones.js';
import { DesignateState, type DnsQuota } from './state.js';

export { DesignateState } from './state.js';
export type { DnsQuota, RecordSet, Zone } from './state.js';

/** How Designate's messages print a value: strings quoted, the rest as JSON. */
const designateRepr = (v: unknown): string => (typeof v === 'string' ? `'${v}'` : JSON.stringify(v) ?? 'None');

export interface DesignateSimOptions {
  keystone: KeystoneAuthOptions;
  /** Timing and seeded randomness (a realistic, randomly seeded clock when absent); closed with the app. */
  clock?: SimClock;
  /** Default per-project quota (Designate's defaults: 10 zones, 500 recordsets and records per zone, 20 records per recordset). */
  defaultQuota?: Partial<DnsQuota>;
}

export interface DesignateSim {
  app: FastifyInstance;
  state: DesignateState;
}

export function createDesignateSim(opts: DesignateSimOptions): DesignateSim {
  const state = new DesignateState({
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.defaultQuota ? { defaultQuota: opts.defaultQuota } : {}),
  });
  const app = createServiceApp({
    auth: new KeystoneAuth(opts.keystone),
    faults: state.faults,
    renderError: renderDesignateError,
    // openapi/openstack/designate.yaml's paths start with /v2, as the sim's routes do.
    requestSchemas: {
      document: 'designate',
      error: (issue) => dnsErrors.invalidObject(issue.path, jsonschemaMessage(issue, designateRepr), issue.keyword),
    },
    publicRoutes: registerVersionRoutes,
    routes: (scope) => {
      registerZoneRoutes(scope, state);
      registerRecordSetRoutes(scope, state);
      registerQuotaRoutes(scope, state);
    },
  });
  app.addHook('onClose', async () => state.close());
  return { app, state };
}
