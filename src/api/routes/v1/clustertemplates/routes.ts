// /v1/clustertemplates and the legacy /v1/baymodels (spec §2 #3–#14).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { ClusterTemplateRow } from '../../../../db/entities/cluster-template.js';
import { SORTABLE } from '../../../../db/repos/cluster-templates.js';
import { errors } from '../../../../domain/errors.js';
import { checkPatch } from '../../../../domain/json-patch.js';
import { templateLabelWarnings } from '../../../../cluster-spec/template-warnings.js';
import { nextLink, parsePage } from '../../../pagination.js';
import { enforce, type Rule } from '../../../../domain/policy.js';
import { errorResponses, Ident, ListQuery, NoContent, PatchDocument, type ListQueryT } from '../../../schemas/common.js';
import { hostUrl, isoSeconds, selfLinks } from '../../../views.js';
import { sendWarnings, WARNING_HEADERS } from '../../../warnings.js';
import { TemplateCache } from '../../../../db/template-cache.js';
import type { Flavor } from './rules.js';
import { BayModel, BayModelCreate, BayModelList, ClusterTemplate, ClusterTemplateList, READ_ONLY, TemplateCreate } from './schema.js';
import { createTemplate, deleteTemplate, updateTemplate, visibility } from './service.js';
import { caller } from '../../../request-caller.js';

const SPEC = {
  template: { coll: 'clustertemplates', kind: 'ClusterTemplate', plural: 'cluster templates', singular: 'cluster template', bodyName: 'cluster_template', tag: 'clustertemplates', item: ClusterTemplate, list: ClusterTemplateList, create: TemplateCreate, rule: 'clustertemplate' },
  baymodel: { coll: 'baymodels', kind: 'BayModel', plural: 'baymodels', singular: 'baymodel', bodyName: 'baymodel', tag: 'baymodels', item: BayModel, list: BayModelList, create: BayModelCreate, rule: 'baymodel' },
} as const;

/** The wire view, field by field (spreads of 35-field rows dominated list latency). */
export function templateView(t: ClusterTemplateRow, host: string, flavor: Flavor) {
  return {
    uuid: t.uuid,
    name: t.name,
    coe: t.coe,
    image_id: t.image_id,
    flavor_id: t.flavor_id,
    master_flavor_id: t.master_flavor_id,
    keypair_id: t.keypair_id,
    dns_nameserver: t.dns_nameserver,
    external_network_id: t.external_network_id,
    fixed_network: t.fixed_network,
    fixed_subnet: t.fixed_subnet,
    network_driver: t.network_driver,
    volume_driver: t.volume_driver,
    apiserver_port: t.apiserver_port,
    docker_volume_size: t.docker_volume_size,
    docker_storage_driver: t.docker_storage_driver,
    cluster_distro: t.cluster_distro,
    http_proxy: t.http_proxy,
    https_proxy: t.https_proxy,
    no_proxy: t.no_proxy,
    insecure_registry: t.insecure_registry,
    registry_enabled: t.registry_enabled,
    tls_disabled: t.tls_disabled,
    public: t.public,
    master_lb_enabled: t.master_lb_enabled,
    floating_ip_enabled: t.floating_ip_enabled,
    hidden: t.hidden,
    server_type: t.server_type,
    labels: t.labels,
    tags: t.tags,
    // The baymodel schema does not list these two: its serializer drops them.
    project_id: t.project_id,
    user_id: t.user_id,
    links: selfLinks(host, `${SPEC[flavor].coll}/${t.uuid}`),
    created_at: isoSeconds(t.created_at),
    updated_at: isoSeconds(t.updated_at),
  };
}

const Params = Type.Object({ ident: Ident });

export function templateRoutes(flavor: Flavor): FastifyPluginAsyncTypebox {
  const s = SPEC[flavor];
  const rule = (action: 'detail' | 'get_all' | 'get'): Rule => `${s.rule}:${action}`;
  return async function routes(app) {
    const deps = app.services.templates;
    // Current Magnum (1.11) removed bays and baymodels; Zed's versions keep them.
    if (flavor === 'baymodel') app.addHook('onRoute', (route) => void (route.config = { ...(route.config as object), maxVersion: 10 }));

    /** The template named by `ident`; `cached` only for reads (writes always see the database). */
    async function lookup(request: FastifyRequest, ident: string, cached = false): Promise<ClusterTemplateRow> {
      const vis = visibility(flavor, request.auth);
      const found = cached ? await deps.cache.find(deps.repo, ident, vis) : await deps.repo.find(ident, vis);
      if (found === 'ambiguous') throw errors.ambiguousName(s.plural, s.singular);
      if (!found) throw errors.notFound(s.kind, ident);
      return found;
    }

    async function list(request: FastifyRequest, query: ListQueryT, reply: FastifyReply, detail: boolean) {
      enforce(request.auth, rule(detail ? 'detail' : 'get_all'));
      const page = parsePage(query, app.services.config.maxLimit, SORTABLE);
      const vis = visibility(flavor, request.auth);
      const host = hostUrl(request);
      const body = await deps.cache.listPage(
        TemplateCache.pageKey({ flavor, detail, vis, host, page }),
        () => deps.repo.list(vis, page, page.marker),
        (rows) =>
          String(reply.serialize({
            [s.coll]: rows.map((r) => templateView(r, host, flavor)),
            ...nextLink(host, detail ? `${s.coll}/detail` : s.coll, page, rows.length, rows.at(-1)?.uuid),
          })),
      );
      if (body === 'bad-marker') throw errors.notFound(s.kind, page.marker!);
      return reply.type('application/json; charset=utf-8').send(body);
    }

    const listSchema = { tags: [s.tag], querystring: ListQuery, response: { 200: Type.Ref(s.list), ...errorResponses(400, 401, 403, 404) } };
    app.get(`/${s.coll}`, { schema: { ...listSchema, summary: `List ${s.plural}` } }, (r, reply) => list(r, r.query, reply, false));
    app.get(`/${s.coll}/detail`, { schema: { ...listSchema, summary: `List ${s.plural} (detail)` } }, (r, reply) => list(r, r.query, reply, true));

    app.get(
      `/${s.coll}/:ident`,
      { schema: { tags: [s.tag], summary: `Show a ${s.singular}`, params: Params, response: { 200: Type.Ref(s.item), ...errorResponses(401, 403, 404, 409) } } },
      async (request) => {
        const t = await lookup(request, request.params.ident, true);
        if (!t.public) enforce(request.auth, rule('get'), t);
        return templateView(t, hostUrl(request), flavor);
      },
    );

    app.post(
      `/${s.coll}`,
      {
        config: { bodyName: s.bodyName, readOnly: READ_ONLY },
        schema: { tags: [s.tag], summary: `Create a ${s.singular}`, body: Type.Ref(s.create), response: { 201: Type.Ref(s.item, { headers: WARNING_HEADERS }), ...errorResponses(400, 401, 403, 404, 409) } },
      },
      async (request, reply) => {
        const t = await createTemplate(deps, flavor, caller(request), request.body);
        sendWarnings(reply, templateLabelWarnings(t));
        const host = hostUrl(request);
        reply.code(201).header('location', `${host}/v1/${s.coll}/${t.uuid}`);
        return templateView(t, host, flavor);
      },
    );

    app.patch(
      `/${s.coll}/:ident`,
      {
        schema: {
          tags: [s.tag],
          summary: `Update a ${s.singular} with a JSON patch`,
          params: Params,
          body: PatchDocument,
          response: { 200: Type.Ref(s.item, { headers: WARNING_HEADERS }), ...errorResponses(400, 401, 403, 404, 409) },
        },
        // The patch document is checked by Magnum's rules, not by the schema (its errors differ).
        validatorCompiler: () => () => true,
      },
      async (request, reply) => {
        const ops = checkPatch(request.body);
        const current = await lookup(request, request.params.ident);
        const t = await updateTemplate(deps, flavor, caller(request), current, ops);
        sendWarnings(reply, templateLabelWarnings(t));
        return templateView(t, hostUrl(request), flavor);
      },
    );

    app.delete(
      `/${s.coll}/:ident`,
      { schema: { tags: [s.tag], summary: `Delete a ${s.singular}`, params: Params, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 409) } } },
      async (request, reply) => {
        const t = await lookup(request, request.params.ident);
        await deleteTemplate(deps, flavor, caller(request), t);
        return reply.code(204).send();
      },
    );
  };
}
