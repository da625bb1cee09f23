// The simulator's own admin API (catalog type `cloudsim-admin`): the audit of every live
// resource, the per-operation call counters, fault rules per service at run time, and saving the
// state file; and where a simulated cluster's API address leads. Tokens are validated like the
// services do; only admins may call it, except the Kubernetes endpoint lookup (any project-scoped
// caller, for its own project's clusters).
import type { FastifyInstance } from 'fastify';
import type { CloudAudit } from '../audit.js';
import type { BootReport } from '../nova/boot-log.js';
import { reason, type RenderedError, type SimError } from '../common/errors.js';
import { Faults } from '../common/faults.js';
import { KeystoneAuth, type KeystoneAuthOptions } from '../common/keystone-auth.js';
import { createServiceApp, hostUrl } from '../common/service-app.js';
import { registerKubeEndpointRoutes, type KubeEndpoints } from '../kube/routes-admin.js';
import { registerAuditRoutes, requireAdmin } from './routes-audit.js';
import { registerFaultRoutes } from './routes-faults.js';

/** What the admin API reads and changes: the cloud. */
export interface AdminTarget {
  audit(projectId?: string): CloudAudit;
  calls(): Record<string, number>;
  resetCalls(): void;
  /** Nova's boots by project and name (GET /v1/boots). */
  boots(projectId?: string): BootReport;
  /** Each service's fault rules, by service name. */
  faults: Record<string, Faults>;
  /** Saves the state file now; false when the cloud is not persisted. */
  save(): boolean;
  /** The simulated clusters' API endpoints (GET /v1/kube/endpoints). */
  kube?: KubeEndpoints;
}

export interface AdminSim {
  app: FastifyInstance;
}

/** Keystone's envelope, the closest thing to a house style for an OpenStack-side admin API. */
function renderAdminError(e: SimError): RenderedError {
  return { contentType: 'application/json', body: { error: { code: e.status, title: reason(e.status), message: e.message } } };
}

export function createAdminSim(opts: { keystone: KeystoneAuthOptions; target: AdminTarget }): AdminSim {
  const app = createServiceApp({
    auth: new KeystoneAuth(opts.keystone),
    // Its own rules, never injected: the admin API stays reachable whatever the services suffer.
    faults: new Faults(),
    renderError: renderAdminError,
    publicRoutes: (root) => {
      root.get('/', async (request) => ({
        versions: [{ id: 'v1', status: 'CURRENT', links: [{ rel: 'self', href: `${hostUrl(request)}/v1` }] }],
      }));
    },
    routes: (scope) => {
      if (opts.target.kube) registerKubeEndpointRoutes(scope, opts.target.kube);
      void scope.register(async (admin) => {
        admin.addHook('preHandler', async (request) => requireAdmin(request));
        registerAuditRoutes(admin, opts.target);
        registerFaultRoutes(admin, opts.target);
      });
    },
  });
  return { app };
}
