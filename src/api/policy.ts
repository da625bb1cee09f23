// Policy in code: Magnum's Zed defaults (spec §6) plus the reader role of current OpenStack.
// reader reads, member writes in its own project, admin does everything.
import type { AuthContext } from '../keystone/context.js';
import { errors } from '../domain/errors.js';

/** What a rule asks of the caller. */
type Requirement = 'read' | 'write' | 'admin';

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
} as const satisfies Record<string, Requirement>;

export type Rule = keyof typeof RULES;

const canRead = (ctx: AuthContext): boolean =>
  ctx.isAdmin || (ctx.projectId !== null && ctx.roles.some((r) => r === 'reader' || r === 'member'));
const canWrite = (ctx: AuthContext): boolean => ctx.isAdmin || (ctx.projectId !== null && ctx.roles.includes('member'));

export function allowed(ctx: AuthContext, rule: Rule, target?: { project_id: string | null }): boolean {
  const need: Requirement = RULES[rule];
  if (need === 'admin') return ctx.isAdmin;
  if (target && !ctx.isAdmin && target.project_id !== ctx.projectId) return false;
  return need === 'read' ? canRead(ctx) : canWrite(ctx);
}

/** Throws Magnum's 403 when the caller may not do `rule` (on `target`, when given). */
export function enforce(ctx: AuthContext, rule: Rule, target?: { project_id: string | null }): void {
  if (!allowed(ctx, rule, target)) throw errors.policyDenied(rule);
}
