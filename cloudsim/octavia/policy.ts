// Octavia's API policy, in the two shapes clouds run (test/support/real-openstack/octavia-policy.ts is the
// real services' twin of this setting):
// - 'admin_or_owner' (the simulator's default; devstack installs it): a project's users read and write its
//   load balancers with any role, admins everything (the routes' own ownership checks).
// - 'default': Zed's policy in code (octavia/policies/base.py, with its deprecated rules still honoured):
//   every /lbaas call, reads included, needs a load-balancer_* role or admin; a plain member or reader gets
//   403. Reads: load-balancer_observer or _member (in the project), _global_observer, or an admin; writes:
//   load-balancer_member or an admin; quotas: also load-balancer_quota_admin (the only non-admin who writes them).
// Admins are role admin or load-balancer_admin. The routes still judge whose object it is.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SimError } from '../common/errors.js';
import type { SimCaller } from '../common/keystone-auth.js';
import { callerOf } from '../common/service-app.js';

export type OctaviaPolicy = 'admin_or_owner' | 'default';
export const OCTAVIA_POLICIES: readonly OctaviaPolicy[] = ['admin_or_owner', 'default'];

type Rule = 'read' | 'write' | 'read-quota' | 'write-quota';

/** The roles that pass each rule of the default policy (besides admins). */
const ROLES: Record<Rule, string[]> = {
  read: ['load-balancer_observer', 'load-balancer_member', 'load-balancer_global_observer'],
  write: ['load-balancer_member'],
  'read-quota': ['load-balancer_observer', 'load-balancer_member', 'load-balancer_global_observer', 'load-balancer_quota_admin'],
  'write-quota': ['load-balancer_quota_admin'],
};

function ruleOf(request: FastifyRequest): Rule {
  const read = request.method === 'GET' || request.method === 'HEAD';
  if (/\/lbaas\/quotas(\/|$)/.test(request.url)) return read ? 'read-quota' : 'write-quota';
  return read ? 'read' : 'write';
}

/** Whether the default policy lets the caller make a call judged by `rule`. */
export function allowedByDefault(caller: SimCaller, rule: Rule): boolean {
  if (caller.isAdmin || caller.roles.includes('load-balancer_admin')) return true;
  return ROLES[rule].some((r) => caller.roles.includes(r));
}

/** Judges every /lbaas call by the policy in force (read each call: a test may switch it). */
export function registerOctaviaPolicy(scope: FastifyInstance, policy: () => OctaviaPolicy): void {
  scope.addHook('preHandler', async (request) => {
    if (policy() !== 'default' || !request.url.includes('/lbaas/')) return;
    if (!allowedByDefault(callerOf(request), ruleOf(request))) throw new SimError(403, 'Policy does not allow this request to be performed.');
  });
}
