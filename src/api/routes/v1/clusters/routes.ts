// /v1/clusters, their actions and events, /v1/credentials (1.12+), and the legacy /v1/bays (≤1.10).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { CLUSTER_SORTABLE, type ClusterRow } from '../../../../db/entities/cluster.js';
import type { Scope } from '../../../../db/repos/clusters.js';
import { errors } from '../../../../domain/errors.js';
import { checkPatch } from '../../../../domain/json-patch.js';
import { atLeast } from '../../../../domain/microversion.js';
import { nextLink, parsePage } from '../../../pagination.js';
import { enforce, type Rule } from '../../../../domain/policy.js';
import { MAX_SAFE_ID, errorResponses, Ident, ListQuery, NoContent, PatchDocument, QueryStr, UuidBody, type ListQueryT } from '../../../schemas/common.js';
import { hostUrl } from '../../../views.js';
import { sendWarnings, WARNING_HEADERS } from '../../../warnings.js';
import { planCreate, startCreate, type Flavor } from '../../../../clusters/create.js';
import { startDelete } from '../../../../clusters/delete.js';
import { findCluster } from '../../../../clusters/lookup.js';
import { planResize, startResize } from '../../../../clusters/resize.js';
import { startRotateCredential } from '../../../../clusters/rotate-credential.js';
import { startUpdate } from '../../../../clusters/update.js';
import { planUpgrade, startUpgrade } from '../../../../clusters/upgrade.js';
import { parseBool } from '../../../../domain/wire-values.js';
import type { ApiVersion } from '../../../../domain/microversion.js';
import {
  Bay,
  BayCreate,
  BayDetailList,
  BayList,
  Cluster,
  ClusterCreate,
  ClusterDetailList,
  ClusterEvents,
  ClusterList,
  READ_ONLY,
  ResizeBody,
  UpgradeBody,
} from './schema.js';
import { bayDetail, bayListItem, clusterDetail, clusterListItem } from './views.js';
import { caller, scopeOf } from '../../../request-caller.js';

const Params = Type.Object({ ident: Ident });

/** `xs` by `key`, each group in the order of `xs` (one pass: a page's node groups by cluster). */
function groupBy<T>(xs: T[], key: (x: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const x of xs) {
    const k = key(x);
    const g = out.get(k);
    if (g) g.push(x);
    else out.set(k, [x]);
  }
  return out;
}

const SPEC = {
  cluster: { coll: 'clusters', rule: 'cluster', tag: 'clusters', create: ClusterCreate, bodyName: 'cluster', item: Cluster, list: ClusterList, detailList: ClusterDetailList },
  bay: { coll: 'bays', rule: 'bay', tag: 'bays', create: BayCreate, bodyName: 'bay', item: Bay, list: BayList, detailList: BayDetailList },
} as const;

export const clustersRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const s = app.services;

  const lookup = (request: FastifyRequest, ident: string, scope: Scope = scopeOf(request)): Promise<ClusterRow> => findCluster(s.clusters, ident, scope);

  /** The bay view of one cluster, with its node groups. */
  async function bayView(request: FastifyRequest, c: ClusterRow) {
    return bayDetail(c, { host: hostUrl(request), nodegroups: await s.clusters.nodegroups([c.uuid]) });
  }

  /** The detail (or bay) view of one cluster, with its node groups and template labels. */
  async function detail(request: FastifyRequest, c: ClusterRow, flavor: Flavor) {
    if (flavor === 'bay') return bayView(request, c);
    const nodegroups = await s.clusters.nodegroups([c.uuid]);
    const t = await s.templates.repo.find(c.cluster_template_id, { all: true });
    const templateLabels = t && t !== 'ambiguous' ? t.labels : {};
    return clusterDetail(c, { host: hostUrl(request), version: request.apiVersion, nodegroups, templateLabels });
  }

  function routes(flavor: Flavor) {
    const sp = SPEC[flavor];
    const rule = (action: string) => `${sp.rule}:${action}` as Rule;
    const config: { maxVersion?: number } = flavor === 'bay' ? { maxVersion: 10 } : {};

    async function list(request: FastifyRequest, query: ListQueryT, reply: FastifyReply, isDetail: boolean) {
      enforce(request.auth, rule(isDetail ? 'detail' : 'get_all'));
      const page = parsePage(query, s.config.maxLimit, CLUSTER_SORTABLE);
      const rows = await s.clusters.list(scopeOf(request), page, page.marker);
      if (rows === 'bad-marker') throw errors.notFound('Cluster', page.marker!);
      const groups = groupBy(await s.clusters.nodegroups(rows.map((r) => r.uuid)), (g) => g.cluster_id);
      const host = hostUrl(request);
      const labels = isDetail && flavor === 'cluster' ? await templateLabels(rows) : new Map<string, Record<string, string>>();
      const items = rows.map((c) => {
        const nodegroups = groups.get(c.uuid) ?? [];
        const version = request.apiVersion;
        if (flavor === 'bay') return isDetail ? bayDetail(c, { host, nodegroups }) : bayListItem(c, { host, nodegroups });
        return isDetail
          ? clusterDetail(c, { host, version, nodegroups, templateLabels: labels.get(c.cluster_template_id) ?? {} })
          : clusterListItem(c, { host, version, nodegroups });
      });
      const path = isDetail ? `${sp.coll}/detail` : sp.coll;
      return reply.send({ [sp.coll]: items, ...nextLink(host, path, page, rows.length, rows.at(-1)?.uuid) });
    }

    const listSchema = (detailed: boolean) => ({
      tags: [sp.tag],
      summary: `List ${sp.coll}${detailed ? ' (detail)' : ''}`,
      querystring: ListQuery,
      response: { 200: Type.Ref(detailed ? sp.detailList : sp.list), ...errorResponses(400, 401, 403, 404) },
    });
    app.get(`/${sp.coll}`, { config, schema: listSchema(false) }, (r, reply) => list(r, r.query, reply, false));
    app.get(`/${sp.coll}/detail`, { config, schema: listSchema(true) }, (r, reply) => list(r, r.query, reply, true));

    app.get(
      `/${sp.coll}/:ident`,
      { config, schema: { tags: [sp.tag], summary: `Show a ${flavor}`, params: Params, response: { 200: Type.Ref(sp.item), ...errorResponses(401, 403, 404, 409) } } },
      async (request) => {
        const c = await lookup(request, request.params.ident);
        enforce(request.auth, rule('get'), c);
        return detail(request, c, flavor);
      },
    );

    app.post(
      `/${sp.coll}`,
      {
        config: { ...config, bodyName: sp.bodyName, readOnly: READ_ONLY },
        schema: {
          tags: [sp.tag],
          summary: `Create a ${flavor}`,
          description: flavor === 'bay' ? 'At 1.1 the bay is answered in full with 201; from 1.2 with 202 and its uuid.' : undefined,
          body: Type.Ref(sp.create),
          response: { 201: Type.Ref(Bay, { headers: WARNING_HEADERS }), 202: Type.Object(UuidBody.properties, { headers: WARNING_HEADERS }), ...errorResponses(400, 401, 403, 404, 409) },
        },
      },
      async (request, reply) => {
        const who = caller(request);
        const { row: c, warnings } = await startCreate(s, who, await planCreate(s, who, request.body, request.apiVersion, flavor));
        sendWarnings(reply, warnings);
        if (flavor === 'bay' && !atLeast(request.apiVersion, 2)) {
          reply.code(201).header('location', `${hostUrl(request)}/v1/bays/${c.uuid}`);
          return detail(request, c, flavor);
        }
        return reply.code(202).send({ uuid: c.uuid });
      },
    );

    app.patch(
      `/${sp.coll}/:ident`,
      {
        config,
        schema: {
          tags: [sp.tag],
          summary: `Update a ${flavor} with a JSON patch (node_count${flavor === 'cluster' ? ', health_status, health_status_reason' : ''})`,
          params: Params,
          querystring: Type.Object({ rollback: Type.Optional(QueryStr({ description: 'From 1.3: roll back on failure' })) }),
          body: PatchDocument,
          response: { 200: Type.Ref(Bay), 202: UuidBody, ...errorResponses(400, 401, 403, 404, 409) },
        },
        validatorCompiler: () => () => true,
      },
      async (request, reply) => {
        const rollback = rollbackArg(request.query, request.apiVersion);
        const ops = checkPatch(request.body);
        const c = await lookup(request, request.params.ident);
        const updated = await startUpdate(s, caller(request), c, ops, request.apiVersion, flavor, rollback);
        if (flavor === 'bay' && !atLeast(request.apiVersion, 2)) return reply.code(200).send(await bayView(request, updated));
        return reply.code(202).send({ uuid: c.uuid });
      },
    );

    app.delete(
      `/${sp.coll}/:ident`,
      { config, schema: { tags: [sp.tag], summary: `Delete a ${flavor}`, params: Params, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 409) } } },
      async (request, reply) => {
        const c = await lookup(request, request.params.ident);
        await startDelete(s, caller(request), c, flavor);
        return reply.code(204).send();
      },
    );
  }

  async function templateLabels(rows: ClusterRow[]): Promise<Map<string, Record<string, string>>> {
    const out = new Map<string, Record<string, string>>();
    for (const id of new Set(rows.map((r) => r.cluster_template_id))) {
      const t = await s.templates.repo.find(id, { all: true });
      if (t && t !== 'ambiguous') out.set(id, t.labels);
    }
    return out;
  }

  routes('cluster');
  routes('bay');

  app.post(
    '/clusters/:ident/actions/resize',
    {
      config: { minVersion: 7, bodyName: 'cluster_resize_req' },
      schema: { tags: ['clusters'], summary: 'Resize a node group', params: Params, body: Type.Ref(ResizeBody), response: { 202: UuidBody, ...errorResponses(400, 401, 403, 404, 409) } },
    },
    async (request, reply) => {
      // Magnum's resize has no all-projects widening: admins resize in their own project.
      const c = await lookup(request, request.params.ident, scopeOf(request, true));
      await startResize(s, c, await planResize(s, caller(request), c, request.body, request.apiVersion));
      return reply.code(202).send({ uuid: c.uuid });
    },
  );

  app.post(
    '/clusters/:ident/actions/upgrade',
    {
      config: { minVersion: 7, bodyName: 'cluster_upgrade_req' },
      schema: {
        tags: ['clusters'],
        summary: 'Upgrade to another template (one Kubernetes minor at a time)',
        description: 'Exists at 1.7 only to answer 400; works from 1.8.',
        params: Params,
        body: Type.Ref(UpgradeBody),
        response: { 202: UuidBody, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      if (!atLeast(request.apiVersion, 8)) throw errors.upgradeUnsupportedVersion();
      const c = await lookup(request, request.params.ident);
      await startUpgrade(s, c, await planUpgrade(s, caller(request), c, request.body, request.apiVersion));
      return reply.code(202).send({ uuid: c.uuid });
    },
  );

  app.get(
    '/clusters/:ident/events',
    {
      schema: {
        tags: ['clusters'],
        summary: 'The cluster’s conditions and event timeline (an extension; Magnum has no such call)',
        params: Params,
        querystring: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1 })), marker: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_SAFE_ID })) }),
        response: { 200: Type.Ref(ClusterEvents), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const c = await lookup(request, request.params.ident);
      enforce(request.auth, 'cluster:get_events', c);
      const limit = Math.min(request.query.limit ?? s.config.maxLimit, s.config.maxLimit);
      const events = await s.events.page(c.uuid, limit, request.query.marker);
      const host = hostUrl(request);
      const last = events.at(-1);
      return {
        cluster_uuid: c.uuid,
        status: c.status,
        status_reason: c.status_reason,
        conditions: c.conditions,
        events: events.map((e) => ({
          id: Number(e.id),
          at: e.at.toISOString(),
          type: e.type,
          reason: e.reason,
          message: e.message,
          severity: e.severity,
          operation_id: e.operation_id,
        })),
        ...(events.length === limit && last ? { next: `${host}/v1/clusters/${c.uuid}/events?limit=${limit}&marker=${last.id}` } : {}),
      };
    },
  );

  app.patch(
    '/credentials/:ident',
    {
      config: { minVersion: 12 },
      schema: {
        tags: ['clusters'],
        summary: 'Rotate the cluster’s application credential (1.12+)',
        params: Params,
        response: { 202: UuidBody, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      // Magnum's order: the rule first (a project member), then the cluster in the caller's own
      // project only; an admin of another project gets a 404, never a credential of its own.
      enforce(request.auth, 'credential:rotate');
      const c = await lookup(request, request.params.ident, scopeOf(request, true));
      await startRotateCredential(s, caller(request), c);
      return reply.code(202).send({ uuid: c.uuid });
    },
  );
};

/** `?rollback=` exists from 1.3 (below, it is an unknown argument). The query is not validated: any value arrives. */
export function rollbackArg(query: { rollback?: unknown }, version: ApiVersion): boolean {
  if (!('rollback' in query)) return false;
  if (!atLeast(version, 3)) throw errors.unknownArgument('rollback');
  const b = parseBool(query.rollback);
  if (b === undefined) throw errors.invalidInput('rollback', query.rollback, 'Invalid boolean value');
  return b;
}
