// Quota operations in Magnum's order of checks (spec §3.6).
import type { QuotaRow } from '../../../../db/entities/quota.js';
import { QUOTA_SORTABLE } from '../../../../db/entities/quota.js';
import type { QuotaRepo } from '../../../../db/repos/quotas.js';
import { CLUSTER_RESOURCE } from '../../../../db/repos/quotas.js';
import { errors } from '../../../../domain/errors.js';
import type { AuthContext } from '../../../../keystone/context.js';
import { parseIdPage, type IdPage } from '../../../pagination.js';
import { enforce } from '../../../../domain/policy.js';
import type { KeystoneProjects } from './projects.js';
import type { QuotaCreateT, QuotaListQueryT, QuotaUpdateT } from './schema.js';

export interface QuotaDeps {
  repo: QuotaRepo;
  projects: KeystoneProjects;
  maxLimit: number;
  /** max_clusters_per_project: the limit of a project without a quota row. */
  defaultClusterLimit: number;
}

/** What GET shows for a project without a row: the default, without id or timestamps. */
export type QuotaShown = QuotaRow | { project_id: string; resource: string; hard_limit: number };

export async function listQuotas(deps: QuotaDeps, ctx: AuthContext, query: QuotaListQueryT): Promise<{ rows: QuotaRow[]; page: IdPage }> {
  enforce(ctx, 'quota:get_all');
  const { all_tenants: allTenants, ...paging } = query;
  const page = parseIdPage(paging, deps.maxLimit, QUOTA_SORTABLE);
  // Without all_tenants even an admin sees only the quotas of the project it is scoped to.
  const rows = await deps.repo.list(ctx.isAdmin && allTenants ? undefined : (ctx.projectId ?? ''), page, page.marker);
  if (rows === 'bad-marker') throw errors.quotaIdNotFound(page.marker!);
  return { rows, page };
}

export async function showQuota(deps: QuotaDeps, ctx: AuthContext, projectId: string, resource: string): Promise<QuotaShown> {
  enforce(ctx, 'quota:get');
  if (!ctx.isAdmin && projectId !== ctx.projectId) throw errors.notAuthorized();
  // Magnum answers the default for any resource name that has no row, naming it Cluster.
  return (await deps.repo.find(projectId, resource)) ?? { project_id: projectId, resource: CLUSTER_RESOURCE, hard_limit: deps.defaultClusterLimit };
}

export async function createQuota(deps: QuotaDeps, ctx: AuthContext, body: QuotaCreateT): Promise<QuotaRow> {
  // Policy before the Keystone lookup (Magnum looks first), so non-admins cannot probe projects.
  enforce(ctx, 'quota:create');
  if (!(await deps.projects.exists(body.project_id))) throw errors.projectNotFound(body.project_id);
  const resource = body.resource ?? CLUSTER_RESOURCE;
  const row = await deps.repo.insert({ project_id: body.project_id, resource, hard_limit: body.hard_limit ?? 1 });
  if (row === 'duplicate') throw errors.quotaExists(body.project_id, resource);
  return row;
}

export async function updateQuota(deps: QuotaDeps, ctx: AuthContext, projectId: string, resource: string, body: QuotaUpdateT): Promise<QuotaRow> {
  enforce(ctx, 'quota:update');
  const row = await deps.repo.setLimit(projectId, resource, body.hard_limit ?? 1);
  if (!row) throw errors.quotaNotFound(projectId, resource);
  return row;
}

export async function deleteQuota(deps: QuotaDeps, ctx: AuthContext, projectId: string, resource: string): Promise<void> {
  enforce(ctx, 'quota:delete');
  if (!(await deps.repo.remove(projectId, resource))) throw errors.quotaNotFound(projectId, resource);
}
