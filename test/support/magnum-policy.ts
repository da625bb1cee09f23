// The one table of Magnum's policies the policy matrix (test/domain/policy.test.ts) derives its
// expected statuses from, written from Magnum's own sources, not from src/api/policy.ts:
// magnum/common/policies/*.py (current Magnum: check strings over reader/member roles, scope_types)
// and its controllers (what a rule is checked against, which *_all_projects rule widens an admin's
// reach, whether the policy comes before the lookup). Keyed by "METHOD /path" of the OpenAPI document.

/** Magnum's check strings (magnum/common/policies/base.py). */
export type Check =
  | 'admin' // rule:context_is_admin
  | 'admin_or_reader' // admin_or_project_reader(_deny_cluster_user)
  | 'admin_or_member' // admin_or_project_member(_deny_cluster_user)
  | 'admin_or_reader_user' // admin_or_project_reader_user: the target's project and user
  | 'admin_or_member_user' // admin_or_project_member_user(_or_cluster_user)
  | 'member'; // project_member_deny_cluster_user (no admin in it)

export interface PolicyOp {
  /** Magnum's rule name (an extension names the rule it reuses). */
  rule: string;
  check: Check;
  /** scope_types: ['project'], or none given. */
  scope: 'project' | 'any';
  /**
   * What the rule is checked against. `none`: the caller's own project and user (lists, creates).
   * `before`: the caller's own, before the resource is looked up (nodegroups, quota show).
   * `resource`: the resource the path (or the body) names, after it is looked up in the caller's
   * project, or in every project when `allProjects`.
   */
  target: 'none' | 'before' | 'resource';
  /** An admin reaches other projects' resources (Magnum's *_all_projects rule, or its DB filter). */
  allProjects?: boolean;
  /** What another project's resource answers (default 404: not found in the caller's project). */
  foreign?: number;
  /** The status when allowed. */
  ok: number;
}

/** Operations that take no Keystone token: their status whatever X-Auth-Token says. */
export interface OpenOp {
  open: 'public' | 'portal-session';
  status: number;
}

export type TableEntry = PolicyOp | OpenOp;

const P = (rule: string, check: Check, target: PolicyOp['target'], ok: number, more: Partial<PolicyOp> = {}): PolicyOp => ({
  rule,
  check,
  scope: 'project',
  target,
  ok,
  ...more,
});
const ADMIN = (rule: string, ok: number): PolicyOp => ({ rule, check: 'admin', scope: 'any', target: 'none', ok });
const wide = { allProjects: true };

/**
 * The six calls of a resource family. Admins see every project's cluster templates and clusters
 * (their *_all_projects rules); baymodels' listing never widens (Magnum's baymodel controller).
 */
function family(coll: string, r: string, status: { create: number; update: number }, w: { allProjects?: boolean }): Record<string, TableEntry> {
  return {
    [`GET /v1/${coll}`]: P(`${r}:get_all`, 'admin_or_reader', 'none', 200),
    [`GET /v1/${coll}/detail`]: P(`${r}:detail`, 'admin_or_reader', 'none', 200),
    [`POST /v1/${coll}`]: P(`${r}:create`, 'admin_or_member', 'none', status.create),
    [`GET /v1/${coll}/{ident}`]: P(`${r}:get`, 'admin_or_reader', 'resource', 200, w),
    [`PATCH /v1/${coll}/{ident}`]: P(`${r}:update`, 'admin_or_member', 'resource', status.update, w),
    [`DELETE /v1/${coll}/{ident}`]: P(`${r}:delete`, 'admin_or_member', 'resource', 204, w),
  };
}
const TEMPLATE = { create: 201, update: 200 };
const CLUSTER = { create: 202, update: 202 };

export const MAGNUM_POLICY: Record<string, TableEntry> = {
  'GET /': { open: 'public', status: 200 },
  'GET /v1': { open: 'public', status: 200 },
  // The portal's session endpoints take its cookie, never a token: without the login form's cookie
  // and same-origin headers a login is refused (403), without a session there is none (401).
  'GET /portal/login': { open: 'public', status: 200 },
  'POST /portal/login': { open: 'public', status: 403 },
  // A node's one-time material (issue 26 item 1): no Keystone token counts, only the node's own token; without it, 401 for everyone.
  'POST /bootstrap/v1/material': { open: 'public', status: 401 },
  'GET /portal/session': { open: 'portal-session', status: 401 },
  'POST /portal/logout': { open: 'portal-session', status: 401 },

  ...family('clustertemplates', 'clustertemplate', TEMPLATE, wide),
  ...family('baymodels', 'baymodel', TEMPLATE, {}),
  ...family('clusters', 'cluster', CLUSTER, wide),
  ...family('bays', 'bay', CLUSTER, wide),
  // cluster:resize has no *_all_projects rule: an admin resizes in its own project only.
  'POST /v1/clusters/{ident}/actions/resize': P('cluster:resize', 'admin_or_member', 'resource', 202),
  'POST /v1/clusters/{ident}/actions/upgrade': P('cluster:upgrade', 'admin_or_member', 'resource', 202, wide),
  // credential:rotate (1.12): project_member_deny_cluster_user, no admin in it, no widening.
  'PATCH /v1/credentials/{ident}': P('credential:rotate', 'member', 'resource', 202),

  'GET /v1/clusters/{cluster}/nodegroups': P('nodegroup:get_all', 'admin_or_reader', 'before', 200, wide),
  'GET /v1/clusters/{cluster}/nodegroups/{nodegroup}': P('nodegroup:get', 'admin_or_reader', 'before', 200, wide),
  'GET /v1/clusters/{cluster}/nodegroups/{nodegroup}/nodes': P('nodegroup:get', 'admin_or_reader', 'before', 200, wide),
  // Node group writes have no *_all_projects rule; PATCH looks the cluster up before its policy.
  'POST /v1/clusters/{cluster}/nodegroups': P('nodegroup:create', 'admin_or_member', 'before', 202),
  'PATCH /v1/clusters/{cluster}/nodegroups/{nodegroup}': P('nodegroup:update', 'admin_or_member', 'resource', 202),
  'DELETE /v1/clusters/{cluster}/nodegroups/{nodegroup}': P('nodegroup:delete', 'admin_or_member', 'before', 204),

  // Certificates never widen an admin's reach; the CA is its creator's (or an admin's) only.
  'GET /v1/certificates/{ident}': P('certificate:get', 'admin_or_reader_user', 'resource', 200),
  // The body names the cluster: another project's is a bad request (400), as in Magnum.
  'POST /v1/certificates': P('certificate:create', 'admin_or_member_user', 'resource', 201, { foreign: 400 }),
  'PATCH /v1/certificates/{ident}': P('certificate:rotate_ca', 'admin_or_member', 'resource', 202),

  'GET /v1/quotas': ADMIN('quota:get_all', 200),
  'POST /v1/quotas': ADMIN('quota:create', 201),
  // quota:get is any reader's, for its own project (403 "Not authorized." for another's; admins any).
  'GET /v1/quotas/{project_id}/{resource}': P('quota:get', 'admin_or_reader', 'before', 200, { allProjects: true, foreign: 403 }),
  'PATCH /v1/quotas/{project_id}/{resource}': ADMIN('quota:update', 202),
  'DELETE /v1/quotas/{project_id}/{resource}': ADMIN('quota:delete', 204),
  'GET /v1/stats': P('stats:get_all', 'admin_or_reader', 'none', 200),
  'GET /v1/mservices': ADMIN('magnum-service:get_all', 200),

  // Extensions: each reuses the rule of the Magnum call it extends.
  'GET /v1/clusters/{ident}/events': P('cluster:get (events)', 'admin_or_reader', 'resource', 200, wide),
  'GET /v1/clusters/{ident}/resources': P('cluster:get', 'admin_or_reader', 'resource', 200, wide),
  'GET /v1/clusters/{ident}/upgrades': P('cluster:get', 'admin_or_reader', 'resource', 200, wide),
  'GET /v1/clusters/{ident}/hibernation': P('cluster:get', 'admin_or_reader', 'resource', 200, wide),
  // Hibernation changes the cluster: cluster:update's rule and reach.
  'POST /v1/clusters/{ident}/actions/hibernate': P('cluster:update', 'admin_or_member', 'resource', 202, wide),
  'POST /v1/clusters/{ident}/actions/wake': P('cluster:update', 'admin_or_member', 'resource', 202, wide),
  'PUT /v1/clusters/{ident}/hibernation/schedule': P('cluster:update', 'admin_or_member', 'resource', 200, wide),
  'DELETE /v1/clusters/{ident}/hibernation/schedule': P('cluster:update', 'admin_or_member', 'resource', 204, wide),
  // The maintenance window: read as the cluster, changed as a cluster:update.
  'GET /v1/clusters/{ident}/maintenance': P('cluster:get', 'admin_or_reader', 'resource', 200, wide),
  'PUT /v1/clusters/{ident}/maintenance': P('cluster:update', 'admin_or_member', 'resource', 200, wide),
  'DELETE /v1/clusters/{ident}/maintenance': P('cluster:update', 'admin_or_member', 'resource', 204, wide),
  // The caller's own project only: the Keystone token it presents is scoped there.
  'GET /v1/clusters/{ident}/kubeconfig': P('cluster:get', 'admin_or_reader', 'resource', 200),
  'GET /v1/streams/clusters': P('cluster:get_all', 'admin_or_reader', 'none', 200),
  'GET /v1/streams/clusters/{ident}': P('cluster:get', 'admin_or_reader', 'resource', 200, wide),
  'GET /v1/cloud-choices': P('clustertemplate:get_all', 'admin_or_reader', 'none', 200),
  // Dry-runs: the rule of the call each tries, on the same lookup. What the real call would refuse
  // (another project's cluster: 404) is a dry-run's 200 answer, reporting it; its own refusals are 401 and 403.
  'POST /v1/dry-run/clusters': P('cluster:create', 'admin_or_member', 'none', 200),
  'POST /v1/dry-run/clusters/{ident}/actions/resize': P('cluster:resize', 'admin_or_member', 'resource', 200, { foreign: 200 }),
  'POST /v1/dry-run/clusters/{ident}/actions/upgrade': P('cluster:upgrade', 'admin_or_member', 'resource', 200, { ...wide, foreign: 200 }),
  'POST /v1/dry-run/clusters/{cluster}/nodegroups': P('nodegroup:create', 'admin_or_member', 'before', 200, { foreign: 200 }),
};

/** Who calls: the token's state, and for a valid token its project, roles and user. */
export interface Persona {
  name: string;
  token: 'none' | 'expired' | 'revoked' | 'valid';
  /** Whether the token's project is the resources' project (demo). */
  ownProject: boolean;
  roles: ('reader' | 'member' | 'admin')[];
  /** Whether the caller is the resources' creator (user demo). */
  creator: boolean;
}

function passes(check: Check, p: Persona, sameProject: boolean, sameUser: boolean): boolean {
  const admin = p.roles.includes('admin');
  const reader = p.roles.includes('reader') || p.roles.includes('member') || admin;
  const member = p.roles.includes('member') || admin;
  switch (check) {
    case 'admin':
      return admin;
    case 'admin_or_reader':
      return admin || (sameProject && reader);
    case 'admin_or_member':
      return admin || (sameProject && member);
    case 'admin_or_reader_user':
      return admin || (sameProject && sameUser && reader);
    case 'admin_or_member_user':
      return admin || (sameProject && sameUser && member);
    case 'member':
      return sameProject && member;
  }
}

/** The status Magnum's policy gives `p` for `op` (every persona's token is project-scoped, so every scope type is met). */
export function expectedStatus(op: TableEntry, p: Persona): number {
  if ('open' in op) return op.status;
  if (p.token !== 'valid') return 401;
  if (op.target === 'none') return passes(op.check, p, true, true) ? op.ok : 403;
  if (op.target === 'before' && !passes(op.check, p, true, true)) return 403;
  const admin = p.roles.includes('admin');
  if (!p.ownProject && !(admin && op.allProjects)) return op.foreign ?? 404;
  if (op.target === 'before') return op.ok;
  return passes(op.check, p, p.ownProject, p.creator) ? op.ok : 403;
}

/** The personas of the matrix: the project is demo, its resources are user demo's. */
export const PERSONAS: Persona[] = [
  { name: 'no token', token: 'none', ownProject: false, roles: [], creator: false },
  { name: 'expired token', token: 'expired', ownProject: true, roles: ['member'], creator: true },
  { name: 'revoked token', token: 'revoked', ownProject: true, roles: ['member'], creator: true },
  { name: 'reader', token: 'valid', ownProject: true, roles: ['reader'], creator: false },
  { name: 'member (the creator)', token: 'valid', ownProject: true, roles: ['member'], creator: true },
  { name: 'admin of the project', token: 'valid', ownProject: true, roles: ['admin'], creator: false },
  { name: 'member of another project', token: 'valid', ownProject: false, roles: ['member'], creator: false },
  { name: 'admin of another project', token: 'valid', ownProject: false, roles: ['admin'], creator: false },
];
