// Policy in code: Magnum's Zed defaults (spec §6) plus the reader role of current OpenStack.
// reader reads, member writes in its own project, admin does everything.
import type { AuthContext } from '../keystone/context.js';
import { errors } from '../domain/errors.js';

/**
 * What a rule asks of the caller: read and write (admins anywhere), admin, or 'project-member':
 * the member role in the target's project, with no admin widening (Magnum's project_member rule).
 */
type Requirement = 'read' | 'write' | 'admin' | 'project-member';

const RULES = {
  'clustertemplate:create': 'write',
  'clustertemplate:get_all': 'read',
  'clustertemplate:detail': 'read',
  'clustertemplate:get': 'read',
  'clustertemplate:update': 'write',
  'clustertemplate:delete': 'write',
  'clustertemplate:publish': 'admin',
  'baymodel:create': 'write',
  'baymodel:get_all': 'read',
  'baymodel:detail': 'read',
  'baymodel:get': 'read',
  'baymodel:update': 'write',
  'baymodel:delete': 'write',
  'baymodel:publish': 'admin',
  'cluster:create': 'write',
  'cluster:get_all': 'read',
  'cluster:detail': 'read',
  'cluster:get': 'read',
  'cluster:update': 'write',
  'cluster:update_health_status': 'write',
  'cluster:delete': 'write',
  'cluster:resize': 'write',
  'cluster:upgrade': 'write',
  'cluster:get_events': 'read',
  // Magnum: project_member, scope project; the cluster is looked up in the caller's project only.
  'credential:rotate': 'project-member',
  'bay:create': 'write',
  'bay:get_all': 'read',
  'bay:detail': 'read',
  'bay:get': 'read',
  'bay:update': 'write',
  'bay:delete': 'write',
  'nodegroup:get_all': 'read',
  'nodegroup:get': 'read',
  'nodegroup:create': 'write',
  'nodegroup:update': 'write',
  'nodegroup:delete': 'write',
  // Magnum: only the cluster's creator (or admin) may read the CA and sign; checked against the cluster's user.
  'certificate:get': 'read',
  'certificate:create': 'write',
  'certificate:rotate_ca': 'write',
  'quota:get_all': 'admin',
  'quota:get': 'read',
  'quota:create': 'admin',
  'quota:update': 'admin',
  'quota:delete': 'admin',
  'stats:get_all': 'read',
  'magnum-service:get_all': 'admin',
} as const satisfies Record<string, Requirement>;

export type Rule = keyof typeof RULES;

const canRead = (ctx: AuthContext): boolean =>
  ctx.isAdmin || (ctx.projectId !== null && ctx.roles.some((r) => r === 'reader' || r === 'member'));
const canWrite = (ctx: AuthContext): boolean => ctx.isAdmin || (ctx.projectId !== null && ctx.roles.includes('member'));

export function allowed(ctx: AuthContext, rule: Rule, target?: { project_id: string | null }): boolean {
  const need: Requirement = RULES[rule];
  if (need === 'admin') return ctx.isAdmin;
  if (need === 'project-member') return ctx.projectId !== null && ctx.roles.includes('member') && (!target || target.project_id === ctx.projectId);
  if (target && !ctx.isAdmin && target.project_id !== ctx.projectId) return false;
  return need === 'read' ? canRead(ctx) : canWrite(ctx);
}

/** Throws Magnum's 403 when the caller may not do `rule` (on `target`, when given). */
export function enforce(ctx: AuthContext, rule: Rule, target?: { project_id: string | null }): void {
  if (!allowed(ctx, rule, target)) throw errors.policyDenied(rule);
}
