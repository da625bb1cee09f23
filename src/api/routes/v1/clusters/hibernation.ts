// Hibernation (an extension; Magnum has no such calls): POST /v1/clusters/{ident}/actions/hibernate and
// /actions/wake (202, as Magnum's actions answer; refusals in Magnum's envelope from the registry), and
// GET /v1/clusters/{ident}/hibernation: the state (AWAKE, HIBERNATING, HIBERNATED, WAKING), since when, the
// schedule, and what a hibernation frees on the compute hosts; PUT and DELETE …/hibernation/schedule. Each reuses the rule of the Magnum call it
// extends: cluster:update for the actions, cluster:get for the view.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { findCluster } from '../../../../clusters/lookup.js';
import { hibernationView, startHibernate, startWake } from '../../../../clusters/hibernate.js';
import { errorResponses, Ident, NoContent, UuidBody } from '../../../schemas/common.js';
import { setSchedule } from '../../../../clusters/hibernation-schedule.js';
import { HibernationSchedule } from './hibernation-schema.js';
import { caller, scopeOf } from '../../../request-caller.js';

const Params = Type.Object({ ident: Ident });
/** The actions take no arguments: an empty object, or no body (read as one). */
const NoArguments = Type.Object({}, { additionalProperties: false, description: 'No arguments: {} or no body.' });

export const ClusterHibernation = Type.Object(
  {
    cluster_uuid: Type.String({ format: 'uuid' }),
    state: Type.Union([Type.Literal('AWAKE'), Type.Literal('HIBERNATING'), Type.Literal('HIBERNATED'), Type.Literal('WAKING')], {
      description: 'HIBERNATED: every server shelved (Magnum’s status stays UPDATE_COMPLETE); HIBERNATING and WAKING while the operation runs (UPDATE_IN_PROGRESS).',
    }),
    hibernated_at: Type.Union([Type.String(), Type.Null()]),
    schedule: Type.Union([Type.Ref(HibernationSchedule), Type.Null()]),
    next: Type.Object(
      { hibernate: Type.Union([Type.String(), Type.Null()]), wake: Type.Union([Type.String(), Type.Null()]) },
      { description: 'When the schedule next fires each action (within eight days).' },
    ),
    frees: Type.Union([
      Type.Object(
        { servers: Type.Integer(), vcpus: Type.Integer(), ram_mb: Type.Integer() },
        { description: 'What shelving every server takes off the compute hosts; Nova’s quota usage still counts shelved servers.' },
      ),
      Type.Null(),
    ]),
  },
  { $id: 'ClusterHibernation' },
);

export const clusterHibernationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const s = app.services;
  app.addSchema(HibernationSchedule);
  app.addSchema(ClusterHibernation);

  for (const action of ['hibernate', 'wake'] as const) {
    app.post(
      `/clusters/:ident/actions/${action}`,
      {
        config: { bodyName: action },
        preValidation: async (request) => {
          request.body ??= {};
        },
        schema: {
          tags: ['clusters'],
          summary: action === 'hibernate'
            ? 'Hibernate the cluster: shelve every server, keeping its ports, volumes and etcd’s data (an extension)'
            : 'Wake a hibernated cluster: unshelve every server until the API answers and every node is Ready (an extension)',
          params: Params,
          body: NoArguments,
          response: { 202: UuidBody, ...errorResponses(400, 401, 403, 404, 409) },
        },
      },
      async (request, reply) => {
        const c = await findCluster(s.clusters, request.params.ident, scopeOf(request));
        await (action === 'hibernate' ? startHibernate : startWake)(s, caller(request), c);
        return reply.code(202).send({ uuid: c.uuid });
      },
    );
  }

  app.get(
    '/clusters/:ident/hibernation',
    {
      schema: {
        tags: ['clusters'],
        summary: 'Whether the cluster is hibernated, its schedule and what hibernation frees (an extension)',
        params: Params,
        response: { 200: Type.Ref(ClusterHibernation), ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request) => {
      const c = await findCluster(s.clusters, request.params.ident, scopeOf(request));
      return hibernationView(s, caller(request), c);
    },
  );

  app.put(
    '/clusters/:ident/hibernation/schedule',
    {
      config: { bodyName: 'schedule' },
      schema: {
        tags: ['clusters'],
        summary: 'Set the cluster’s hibernation schedule: cron-like hibernate and wake times in an IANA time zone (an extension)',
        params: Params,
        body: Type.Ref(HibernationSchedule),
        response: { 200: Type.Ref(ClusterHibernation), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const c = await findCluster(s.clusters, request.params.ident, scopeOf(request));
      await setSchedule(s.clusters, caller(request), c, request.body);
      return hibernationView(s, caller(request), await findCluster(s.clusters, c.uuid, scopeOf(request)));
    },
  );

  app.delete(
    '/clusters/:ident/hibernation/schedule',
    {
      schema: {
        tags: ['clusters'],
        summary: 'Remove the cluster’s hibernation schedule (an extension)',
        params: Params,
        response: { 204: NoContent, ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const c = await findCluster(s.clusters, request.params.ident, scopeOf(request));
      await setSchedule(s.clusters, caller(request), c, null);
      return reply.code(204).send();
    },
  );
};
