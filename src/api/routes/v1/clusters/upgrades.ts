// GET /v1/clusters/{ident}/upgrades (an extension): the templates the cluster may upgrade to (one
// Kubernetes minor up at most, never down), the ones it may not and why, and what an upgrade
// would roll and in which order: control planes first, one at a time, then the default workers;
// every other node group afterwards, each by its own upgrade. Surge of one node, batch of one. The next
// maintenance window and the upgrade it would run, when the cluster has one.
import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errors } from '../../../../domain/errors.js';
import { clusterVersion, upgradeVerdict } from '../../../../domain/upgrade-path.js';
import { enforce } from '../../../../domain/policy.js';
import { errorResponses, Ident } from '../../../schemas/common.js';
import { templateVisibility as visibility } from '../../../../clusters/lookup.js';
import { nextMaintenance } from '../../../../clusters/maintenance-window.js';
import { scopeOf } from '../../../request-caller.js';

const NS = Type.Union([Type.String(), Type.Null()]);
const Target = Type.Object({
  uuid: Type.String(),
  name: Type.String(),
  kube_tag: NS,
  valid: Type.Boolean(),
  kind: Type.Optional(Type.Union([Type.Literal('patch'), Type.Literal('minor')])),
  reason: Type.Optional(Type.String()),
});

export const ClusterUpgrades = Type.Object(
  {
    cluster_uuid: Type.String({ format: 'uuid' }),
    current_version: NS,
    current_template: Type.String(),
    targets: Type.Array(Target, { description: 'Valid targets first, newest first; then the refused ones with their reason.' }),
    plan: Type.Array(
      Type.Object({ step: Type.Integer(), nodegroup: Type.String(), role: Type.String(), nodes: Type.Integer(), when: Type.String() }),
      { description: 'The order of the roll for an upgrade of the default worker group (the cluster’s upgrade).' },
    ),
    surge: Type.Integer({ description: 'Extra nodes booted at once: a new node joins and is Ready before an old one is drained and deleted.' }),
    max_batch_size: Type.Integer({ description: 'Nodes replaced at a time.' }),
    next_maintenance: Type.Union(
      [
        Type.Object({
          start: Type.String(),
          end: Type.String(),
          timezone: Type.String(),
          planned_upgrade: Type.Union([
            Type.Object({ cluster_template_id: Type.String(), name: Type.String(), from: Type.String(), to: Type.String(), kind: Type.Union([Type.Literal('patch'), Type.Literal('minor')]) }),
            Type.Null(),
          ]),
          nothing_planned: Type.Union([Type.String(), Type.Null()]),
        }),
        Type.Null(),
      ],
      { description: 'The cluster’s next maintenance window (UTC) and the upgrade it would run, or why none (GET …/maintenance); null without a window.' },
    ),
  },
  { $id: 'ClusterUpgrades' },
);

export const clusterUpgradeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const s = app.services;

  app.get(
    '/clusters/:ident/upgrades',
    {
      schema: {
        tags: ['clusters'],
        summary: 'Valid upgrade targets of the cluster and the order of the roll (an extension)',
        params: Type.Object({ ident: Ident }),
        response: { 200: Type.Ref(ClusterUpgrades), ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request) => {
      const c = await s.clusters.find(request.params.ident, scopeOf(request));
      if (c === 'ambiguous') throw errors.ambiguousName('clusters', 'cluster');
      if (!c) throw errors.notFound('Cluster', request.params.ident);
      enforce(request.auth, 'cluster:get', c);
      const current = clusterVersion(c);
      const templates = await s.templates.repo.list(visibility('template', request.auth), { sortKey: 'id', sortDir: 'asc', limit: 10_000 }, undefined);
      const rows = templates === 'bad-marker' ? [] : templates;
      const targets = rows
        .filter((t) => t.coe === 'kubernetes')
        .map((t) => {
          const v = upgradeVerdict(current ?? undefined, t.labels);
          return { uuid: t.uuid, name: t.name, kube_tag: t.labels.kube_tag ?? null, valid: v.ok, ...(v.ok ? { kind: v.kind } : { reason: v.reason }) };
        })
        .sort((a, b) => Number(b.valid) - Number(a.valid) || (b.kube_tag ?? '').localeCompare(a.kube_tag ?? '', undefined, { numeric: true }) || a.name.localeCompare(b.name));
      const groups = await s.clusters.nodegroups([c.uuid]);
      const ordered = [...groups.filter((g) => g.role === 'master'), ...groups.filter((g) => g.role !== 'master' && g.is_default), ...groups.filter((g) => g.role !== 'master' && !g.is_default)];
      const plan = ordered.map((g, i) => ({
        step: i + 1,
        nodegroup: g.name,
        role: g.role,
        nodes: g.node_count,
        when: g.role === 'master'
          ? 'with the cluster’s upgrade, first: control planes one at a time'
          : g.is_default
            ? 'with the cluster’s upgrade, after the control planes'
            : 'by its own upgrade (nodegroup), after the cluster’s',
      }));
      const next_maintenance = await nextMaintenance(s.templates.repo, c);
      return { cluster_uuid: c.uuid, current_version: current ?? null, current_template: c.cluster_template_id, targets, plan, surge: 1, max_batch_size: 1, next_maintenance };
    },
  );
};
