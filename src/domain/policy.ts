// Policy in code: Magnum's defaults as current Magnum writes them (reader and member roles, scope
// types), over the same rule names as Zed's. Each rule is one of Magnum's check strings and the
// scope its token must have. A rule of scope `project` needs a project-scoped token, so a
// domain- or system-scoped token (which names no project) can never write rows of no project; the
// rules Magnum leaves without scope_types (its admin-only quota and service calls) also take a
// system-scoped admin.
import type { AuthContext } from '../keystone/context.js';
import { errors } from './errors.js';

/**
 * Magnum's base rules (magnum/common/policies/base.py), over the target (the resource, or the
 * caller's own project and user when there is none):
 * - admin: `role:admin` (context_is_admin, admin_api)
 * - admin_or_reader / admin_or_member: admin, or reader (member) of the target's project
 * - admin_or_reader_user / admin_or_member_user: admin, or reader (member) of the project who is the target's user
 * - member: member of the target's project, admins included only through their member role
 */
export type Check = 'admin' | 'admin_or_reader' | 'admin_or_member' | 'admin_or_reader_user' | 'admin_or_member_user' | 'member';
/** Magnum's scope_types: `project`, or none given (`any`: project- or system-scoped). */
export type ScopeType = 'project' | 'any';

interface RuleDef {
  check: Check;
  scope: ScopeType;
}

const project = (check: Check): RuleDef => ({ check, scope: 'project' });
const anyScope = (check: Check): RuleDef => ({ check, scope: 'any' });

const RULES = {
  'clustertemplate:create': project('admin_or_member'),
  'clustertemplate:get_all': project('admin_or_reader'),
  'clustertemplate:detail': project('admin_or_reader'),
  'clustertemplate:get': project('admin_or_reader'),
  'clustertemplate:update': project('admin_or_member'),
  'clustertemplate:delete': project('admin_or_member'),
  'clustertemplate:publish': project('admin'),
  'baymodel:create': project('admin_or_member'),
  'baymodel:get_all': project('admin_or_reader'),
  'baymodel:detail': project('admin_or_reader'),
  'baymodel:get': project('admin_or_reader'),
  'baymodel:update': project('admin_or_member'),
  'baymodel:delete': project('admin_or_member'),
  'baymodel:publish': project('admin'),
  'cluster:create': project('admin_or_member'),
  'cluster:get_all': project('admin_or_reader'),
  'cluster:detail': project('admin_or_reader'),
  'cluster:get': project('admin_or_reader'),
  'cluster:update': project('admin_or_member'),
  // Reported by the cluster's own credential (the creator's) or an admin, as Magnum's rule says.
  'cluster:update_health_status': project('admin_or_member_user'),
  'cluster:delete': project('admin_or_member'),
  'cluster:resize': project('admin_or_member'),
  'cluster:upgrade': project('admin_or_member'),
  'cluster:get_events': project('admin_or_reader'),
  'credential:rotate': project('member'),
  'bay:create': project('admin_or_member'),
  'bay:get_all': project('admin_or_reader'),
  'bay:detail': project('admin_or_reader'),
  'bay:get': project('admin_or_reader'),
  'bay:update': project('admin_or_member'),
  'bay:delete': project('admin_or_member'),
  'nodegroup:get_all': project('admin_or_reader'),
  'nodegroup:get': project('admin_or_reader'),
  'nodegroup:create': project('admin_or_member'),
  'nodegroup:update': project('admin_or_member'),
  'nodegroup:delete': project('admin_or_member'),
  // Only the cluster's creator (or an admin) reads its CA and has CSRs signed.
  'certificate:get': project('admin_or_reader_user'),
  'certificate:create': project('admin_or_member_user'),
  'certificate:rotate_ca': project('admin_or_member'),
  'quota:get_all': anyScope('admin'),
  'quota:get': project('admin_or_reader'),
  'quota:create': anyScope('admin'),
  'quota:update': anyScope('admin'),
  'quota:delete': anyScope('admin'),
  'stats:get_all': project('admin_or_reader'),
  'magnum-service:get_all': anyScope('admin'),
} as const satisfies Record<string, RuleDef>;

export type Rule = keyof typeof RULES;

/** What a rule is checked against: the resource's project and user (the caller's own when absent). */
export interface Target {
  project_id: string | null;
  user_id?: string | null;
}

const hasRole = (ctx: AuthContext, role: 'reader' | 'member'): boolean =>
  role === 'reader' ? ctx.roles.some((r) => r === 'reader' || r === 'member') : ctx.roles.includes('member');

function passes(ctx: AuthContext, check: Check, target: Target | undefined): boolean {
  const ownProject = ctx.projectId !== null && (target === undefined || target.project_id === ctx.projectId);
  const ownUser = target === undefined || target.user_id === undefined || target.user_id === ctx.userId;
  switch (check) {
    case 'admin':
      return ctx.isAdmin;
    case 'admin_or_reader':
      return ctx.isAdmin || (ownProject && hasRole(ctx, 'reader'));
    case 'admin_or_member':
      return ctx.isAdmin || (ownProject && hasRole(ctx, 'member'));
    case 'admin_or_reader_user':
      return ctx.isAdmin || (ownProject && ownUser && hasRole(ctx, 'reader'));
    case 'admin_or_member_user':
      return ctx.isAdmin || (ownProject && ownUser && hasRole(ctx, 'member'));
    case 'member':
      return ownProject && hasRole(ctx, 'member');
  }
}

export function allowed(ctx: AuthContext, rule: Rule, target?: Target): boolean {
  const def: RuleDef = RULES[rule];
  const scoped = ctx.scope === 'project' || (def.scope === 'any' && ctx.scope === 'system');
  return scoped && passes(ctx, def.check, target);
}

/** Throws Magnum's 403 when the caller may not do `rule` (on `target`, when given). */
export function enforce(ctx: AuthContext, rule: Rule, target?: Target): void {
  if (!allowed(ctx, rule, target)) throw errors.policyDenied(rule);
}

/** The rule's check string and scope type (documentation, tests). */
export const ruleDef = (rule: Rule): RuleDef => RULES[rule];
