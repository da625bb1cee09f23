// /v1/streams/*: Server-Sent Events of the project's clusters and of one cluster's conditions, node
// groups and event timeline (extensions for the portal; Magnum has no such calls). Driven by
// PostgreSQL NOTIFY (migration ClusterChangeNotify), so a change any worker makes reaches every API
// process. Same policies and project scoping as the GET routes. Under the portal's cookie,
// EventSource (which sends no headers) passes its CSRF token and project in the query.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { NotifyHub, type ClusterChange } from '../../../../db/notify-hub.js';
import { ClusterViewRepo } from '../../../../db/repos/cluster-views.js';
import { ClusterEventRepo } from '../../../../db/repos/events.js';
import { ResourceRepo } from '../../../../db/repos/resources.js';
import { errors } from '../../../../domain/errors.js';
import { allowed, enforce } from '../../../../domain/policy.js';
import { errorResponses, Ident, QueryStr } from '../../../schemas/common.js';
import { Coalescer } from './coalesce.js';
import { SseStream } from './sse.js';
import { liveOf, summaryOfRow } from './summary.js';
import { scopeOf } from '../../../request-caller.js';

const StreamQuery = Type.Object({
  csrf: Type.Optional(QueryStr({ description: 'Portal sessions only: the session’s CSRF token (EventSource cannot send X-CSRF-Token).' })),
  project: Type.Optional(QueryStr({ description: 'Portal sessions only: the project to act in (EventSource cannot send X-Portal-Project).' })),
});

/** At most one read a stream per this many ms while changes keep coming (the first after a quiet spell goes at once). */
const BATCH_MS = 40;
const EVENT_PAGE = 500;


export const streamRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const s = app.services;
  const views = new ClusterViewRepo(s.db);
  const events = new ClusterEventRepo(s.db);
  const ledger = new ResourceRepo(s.db);
  const hub = new NotifyHub(s.config.databaseUrl, (obj, msg) => app.log.warn(obj, msg));
  const open = new Set<SseStream>();
  // Before the server waits for its connections to end: the streams end first.
  app.addHook('preClose', async () => {
    for (const st of open) st.end('closing');
  });
  app.addHook('onClose', async () => {
    await hub.close();
  });

  const start = (request: FastifyRequest, reply: FastifyReply) => {
    const token = request.authToken;
    const st = new SseStream(request, reply, {
      stillValid: () => s.validator.validate(token).then(() => true, () => false),
    });
    open.add(st);
    st.finally(() => open.delete(st));
    return st;
  };

  app.get(
    '/streams/clusters',
    {
      config: { stream: true },
      schema: {
        tags: ['clusters'],
        summary: 'Server-Sent Events of the clusters the caller may list (an extension)',
        description:
          'text/event-stream. `snapshot` {clusters: ClusterSummary[]} first (and again after the server lost its feed), then `cluster` (a ClusterSummary) on every change and `deleted` {uuid}; `expired` when the token ends. Same scope as GET /v1/clusters (admins: every project).',
        querystring: StreamQuery,
        produces: ['text/event-stream'],
        response: { 200: Type.String({ description: 'text/event-stream' }), ...errorResponses(401, 403) },
      },
    },
    async (request, reply) => {
      enforce(request.auth, 'cluster:get_all');
      const scope = scopeOf(request);
      const dirty = new Set<string>();
      let resync = true;
      const st = start(request, reply);
      const flush = async () => {
        if (st.closed) return;
        if (resync) {
          resync = false;
          dirty.clear();
          st.send('snapshot', { clusters: (await views.summaries(scope)).map(summaryOfRow) });
          return;
        }
        const uuids = [...dirty];
        dirty.clear();
        const found = (await views.summaries(scope, uuids)).map(summaryOfRow);
        const seen = new Set(found.map((r) => r.uuid));
        for (const r of found) st.send('cluster', r);
        for (const u of uuids) if (!seen.has(u)) st.send('deleted', { uuid: u });
      };
      const reads = new Coalescer(flush, BATCH_MS, (e) => st.end('error', { reason: e.message }));
      const unsubscribe = await hub.subscribe((c: ClusterChange) => {
        if (c.kind === 'resync') resync = true;
        else if (c.kind === 'cluster' && (scope.all || c.project === scope.projectId)) dirty.add(c.cluster);
        else return;
        reads.poke();
      });
      st.finally(() => {
        unsubscribe();
        reads.stop();
      });
      // The snapshot goes at once.
      reads.poke();
    },
  );

  app.get(
    '/streams/clusters/:ident',
    {
      config: { stream: true },
      schema: {
        tags: ['clusters'],
        summary: 'Server-Sent Events of one cluster: its conditions, node groups and event timeline (an extension)',
        description:
          'text/event-stream. `cluster` (ClusterLive: summary, conditions, node groups) first and on every change; `events` (new timeline entries, each with `id`; the SSE id is the last one, so a reconnect with Last-Event-ID resumes); `deleted` when the cluster is gone; `expired` when the token ends.',
        params: Type.Object({ ident: Ident }),
        querystring: StreamQuery,
        produces: ['text/event-stream'],
        response: { 200: Type.String({ description: 'text/event-stream' }), ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const scope = scopeOf(request);
      const found = await s.clusters.find(request.params.ident, scope);
      if (found === 'ambiguous') throw errors.ambiguousName('clusters', 'cluster');
      if (!found) throw errors.notFound('Cluster', request.params.ident);
      enforce(request.auth, 'cluster:get', found);
      const uuid = found.uuid;
      const withEvents = allowed(request.auth, 'cluster:get_events', found);
      const last = request.headers['last-event-id'];
      let lastEvent = typeof last === 'string' && /^\d+$/.test(last) ? Number(last) : undefined;
      let clusterDirty = true;
      let eventsDirty = withEvents;
      const st = start(request, reply);

      const sendEvents = async () => {
        for (;;) {
          // The first page of a fresh stream is the latest EVENT_PAGE entries; later pages all that is new.
          const rows = lastEvent === undefined ? await events.latest(uuid, EVENT_PAGE) : await events.page(uuid, EVENT_PAGE, lastEvent);
          if (rows.length === 0) {
            if (lastEvent === undefined) lastEvent = 0;
            return;
          }
          lastEvent = Number(rows.at(-1)!.id);
          st.send(
            'events',
            rows.map((e) => ({ id: Number(e.id), at: e.at.toISOString(), type: e.type, reason: e.reason, message: e.message, severity: e.severity, operation_id: e.operation_id })),
            lastEvent,
          );
          if (rows.length < EVENT_PAGE) return;
        }
      };
      const flush = async () => {
        if (st.closed) return;
        if (clusterDirty) {
          clusterDirty = false;
          const [r] = await views.withGroups({ all: true }, [uuid]);
          if (!r) return st.end('deleted', { uuid });
          const servers = await ledger.live(uuid, 'server');
          st.send('cluster', liveOf(r.cluster, r.groups, servers.map((x) => ({ id: x.cloud_id, name: x.name }))));
        }
        if (eventsDirty) {
          eventsDirty = false;
          await sendEvents();
        }
      };
      const reads = new Coalescer(flush, BATCH_MS, (e) => st.end('error', { reason: e.message }));
      const unsubscribe = await hub.subscribe((c) => {
        if (c.kind === 'resync') {
          clusterDirty = true;
          eventsDirty = withEvents;
        } else if (c.cluster !== uuid) return;
        else if (c.kind === 'cluster') clusterDirty = true;
        else if (withEvents) eventsDirty = true;
        else return;
        reads.poke();
      });
      st.finally(() => {
        unsubscribe();
        reads.stop();
      });
      reads.poke();
    },
  );
};
