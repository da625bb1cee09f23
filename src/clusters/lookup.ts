// Finding what a use case acts on, with Magnum's errors: a cluster or node group by uuid, name or id in the
// caller's scope, a template by what a request names, the group a resize or an upgrade means by default.
import type { EntityManager } from 'typeorm';
import type { ClusterRow } from '../db/entities/cluster.js';
import type { ClusterTemplateRow } from '../db/entities/cluster-template.js';
import type { NodeGroupRow } from '../db/entities/nodegroup.js';
import type { ClusterTemplateRepo, Visibility } from '../db/repos/cluster-templates.js';
import type { ClusterRepo, Scope } from '../db/repos/clusters.js';
import type { NodeGroupRepo } from '../db/repos/nodegroups.js';
import { errors } from '../domain/errors.js';
import type { AuthContext } from '../keystone/context.js';
import type { CloudCaller } from '../openstack/caller.js';

/** Who asks: the validated token's context and the token, for what is asked of the cloud as them. */
export type Caller = CloudCaller;

export type TemplateFinder = Pick<ClusterTemplateRepo, 'find'>;

/** Which templates a caller sees: admins every template (not baymodels: Magnum has no such rule), others their project's and the public ones. */
export function templateVisibility(kind: 'template' | 'baymodel', ctx: AuthContext): Visibility {
  if (ctx.isAdmin && kind === 'template') return { all: true };
  return { all: false, projectId: ctx.projectId, hiddenPublic: false };
}

/** Reads: admins see every project (the *_all_projects rules); everyone else their own. */
export const readScope = (ctx: AuthContext): Scope => (ctx.isAdmin ? { all: true } : { all: false, projectId: ctx.projectId });
/** Writes Magnum has no all-projects rule for (resize, node groups, credentials): admins too act in their own project. */
export const ownScope = (ctx: AuthContext): Scope => ({ all: false, projectId: ctx.projectId });

const empty = (v: string | null | undefined): v is '' | null | undefined => v === undefined || v === null || v === '';

/** The template a request names; Magnum's 400 (≤1.9, bays) or 404 (1.10+) when missing. */
export async function templateFor(templates: TemplateFinder, who: Caller, ident: string | null | undefined, field: string, notFoundStatus: 400 | 404): Promise<ClusterTemplateRow> {
  if (empty(ident)) throw errors.invalidInput(field, 'None', 'Mandatory field missing.');
  const found = await templates.find(ident, templateVisibility('template', who.ctx));
  if (found === 'ambiguous') throw errors.ambiguousName('cluster templates', 'cluster template');
  if (!found) throw notFoundStatus === 404 ? errors.notFound('ClusterTemplate', ident) : errors.templateNotFoundBadRequest(ident);
  return found;
}

/** The template a cluster was made from (any project's: it may since have been made private). */
export async function templateOf(templates: TemplateFinder, c: ClusterRow): Promise<ClusterTemplateRow> {
  const t = await templates.find(c.cluster_template_id, { all: true });
  if (!t || t === 'ambiguous') throw errors.notFound('ClusterTemplate', c.cluster_template_id);
  return t;
}

export async function findCluster(clusters: Pick<ClusterRepo, 'find'>, ident: string, scope: Scope): Promise<ClusterRow> {
  const found = await clusters.find(ident, scope);
  if (found === 'ambiguous') throw errors.ambiguousName('clusters', 'cluster');
  if (!found) throw errors.notFound('Cluster', ident);
  return found;
}

export async function findNodegroup(nodegroups: Pick<NodeGroupRepo, 'find'>, clusterUuid: string, ident: string, scope: Scope, em?: EntityManager, lock = false): Promise<NodeGroupRow> {
  const found = await nodegroups.find(clusterUuid, ident, scope, em, lock);
  if (found === 'ambiguous') throw errors.ambiguousName('nodegroups', 'nodegroup');
  if (!found) throw errors.notFound('Nodegroup', ident);
  return found;
}

/** The cluster's default worker group (a resize or an upgrade naming none). */
export const defaultWorker = (groups: NodeGroupRow[]): NodeGroupRow | undefined =>
  groups.find((g) => g.is_default && g.role !== 'master') ?? groups.find((g) => g.role !== 'master');

/** A group of the cluster by uuid, name or id. */
export function findGroup(groups: NodeGroupRow[], ident: string): NodeGroupRow | undefined {
  const byName = groups.filter((g) => g.name === ident);
  if (byName.length > 1) throw errors.ambiguousName('nodegroups', 'nodegroup');
  return groups.find((g) => g.uuid === ident.toLowerCase()) ?? byName[0] ?? groups.find((g) => String(g.id) === ident);
}
