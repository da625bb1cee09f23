// Dry-runs (an extension): POST /v1/dry-run/<path> answers what POST /v1/<path> would, writing nothing —
// for a cluster create, a resize, a node group create and an upgrade. The same checks in the same order
// (the operations' plan functions), the same bill against every quota (preflight.ts), the same
// transition table (wouldBegin): the two cannot disagree. 200 with the bill, the label warnings, and the
// status and Magnum error envelope the real call would answer. What stops the dry-run itself is its own
// answer: no token (401), a policy refusing the operation (403), a microversion (406), the cloud down (503).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { Scope } from '../../../db/repos/clusters.js';
import { ApiError, errors } from '../../../domain/errors.js';
import type { OperationKind } from '../../../domain/operations.js';
import { wouldBegin } from '../../../operations/begin.js';
import { envelope, toApiError } from '../../plugins/envelope.js';
import { errorResponses, Ident, Nullable } from '../../schemas/common.js';
import { planResize } from '../../../clusters/actions.js';
import { shortage, type Assessment } from '../../../preflight/assess.js';
import { planCreate } from '../../../clusters/create.js';
import { credentialRefusal } from '../../../clusters/credential.js';
import type { Caller } from '../../../preflight/preflight.js';
import { ClusterCreate, READ_ONLY, ResizeBody, UpgradeBody } from './clusters/schema.js';
import { planUpgrade } from '../../../clusters/upgrade.js';
import { nodegroupCaller, nodegroupDeps, refuseLateFields } from './nodegroups/routes.js';
import { NodeGroupCreate, READ_ONLY as NODEGROUP_READ_ONLY } from './nodegroups/schema.js';
import { planNodegroupCreate } from '../../../clusters/nodegroups.js';

const BillLine = Type.Object({
  quota: Type.String({ description: 'The quota, by its service’s name: clusters (Magnum), instances, cores, ram (MiB), server_groups, server_group_members, volumes, gigabytes, network, subnet, router, port, floatingip, security_group, security_group_rule, load_balancer, listener, pool, member, health_monitor, zone_recordsets, secrets.' }),
  service: Type.String({ description: 'The service type that keeps it.' }),
  needed: Type.Integer({ description: 'What the request takes (an upgrade’s or a rotation’s peak while it rolls).' }),
  in_use: Nullable(Type.Integer({ description: 'What the project holds now; null when the service does not report it (not checked).' })),
  limit: Nullable(Type.Integer({ description: '−1 unlimited; null unknown.' })),
  short: Type.Boolean(),
  per: Type.Optional(Type.String({ description: 'A limit per object (server group, zone), not a project total.' })),
});

export const DryRun = Type.Object(
  {
    operation: Type.String({ description: 'create, resize, nodegroup_create or upgrade.' }),
    accepted: Type.Boolean({ description: 'Whether the real call would be accepted.' }),
    status: Type.Integer({ description: 'What the real call would answer: 202, or its error’s status.' }),
    errors: Type.Array(
      Type.Object({ request_id: Type.String(), code: Type.String(), status: Type.Integer(), title: Type.String(), detail: Nullable(Type.String()), links: Type.Array(Type.Unknown()) }),
      { description: 'The real call’s Magnum error envelope (its `errors`), empty when it would be accepted.' },
    ),
    checked: Type.Boolean({ description: 'Whether the quotas were asked of the cloud (false when the service does not check cloud resources).' }),
    bill: Type.Array(BillLine, { description: 'Every quota: needed, in use, limit, short. Empty when a check before the bill refused the request.' }),
    warnings: Type.Array(Type.String(), { description: 'Labels accepted but ignored, deprecated or unknown (a create).' }),
  },
  { $id: 'DryRun' },
);
type DryRunT = Static<typeof DryRun>;

const Params = Type.Object({ ident: Ident });
const TAGS = ['dry-run'];
const caller = (request: FastifyRequest): Caller => ({ ctx: request.auth, token: request.authToken });

/** The dry-run's answer: the real call's outcome with what was billed so far. */
function answer(operation: string, error: ApiError | undefined, bill: Assessment | undefined, warnings: string[] = []): DryRunT {
  return {
    operation,
    accepted: error === undefined,
    status: error?.status ?? 202,
    errors: error ? envelope(error).errors : [],
    checked: bill?.checked ?? false,
    bill: bill?.lines ?? [],
    warnings,
  };
}

/** Errors of the dry-run itself (auth, policy, version, the service or the cloud failing) are its answer; the request's are reported. */
const ownError = (e: ApiError): boolean => e.status === 401 || e.id === 'policy' || e.status === 406 || e.status >= 500;

function dryRunErrors(operation: string) {
  return (err: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) => {
    const e = toApiError(err, request);
    if (!e || ownError(e)) throw err;
    return reply.code(200).send(answer(operation, e, undefined));
  };
}

/** After a plan: its shortage, else what the transition table says now. */
async function outcome(request: FastifyRequest, operation: OperationKind, clusterId: string | undefined, bill: Assessment, warnings: string[] = []): Promise<DryRunT> {
  const short = shortage(bill);
  if (short) return answer(operation, short, bill, warnings);
  // A create then gives the cluster its credential: the caller must be allowed to.
  if (clusterId === undefined) return answer(operation, credentialRefusal(caller(request)), bill, warnings);
  const refused = await wouldBegin(request.server.services.outbox, clusterId, operation);
  return answer(operation, refused === 'gone' ? errors.notFound('Cluster', clusterId) : refused, bill, warnings);
}

export const dryRunRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const s = app.services;
  const response = { 200: Type.Ref(DryRun), ...errorResponses(401, 403, 406, 503) };
  const doc = (what: string, real: string) => ({ tags: TAGS, summary: `Dry-run of ${what} (an extension): ${real} without writing anything` });

  async function cluster(request: FastifyRequest, ident: string, scope: Scope) {
    const found = await s.clusters.find(ident, scope);
    if (found === 'ambiguous') throw errors.ambiguousName('clusters', 'cluster');
    if (!found) throw errors.notFound('Cluster', ident);
    return found;
  }
  const own = (request: FastifyRequest): Scope => ({ all: false, projectId: request.auth.projectId });
  const visible = (request: FastifyRequest): Scope => (request.auth.isAdmin ? { all: true } : own(request));

  app.post(
    '/dry-run/clusters',
    {
      config: { bodyName: 'cluster', readOnly: READ_ONLY },
      errorHandler: dryRunErrors('create'),
      schema: { ...doc('a cluster create', 'POST /v1/clusters'), body: Type.Ref(ClusterCreate), response },
    },
    async (request) => {
      const plan = await planCreate(s, caller(request), request.body, request.apiVersion, 'cluster');
      return outcome(request, 'create', undefined, plan.bill, plan.warnings);
    },
  );

  app.post(
    '/dry-run/clusters/:ident/actions/resize',
    {
      config: { minVersion: 7, bodyName: 'cluster_resize_req' },
      errorHandler: dryRunErrors('resize'),
      schema: { ...doc('a resize', 'POST /v1/clusters/{ident}/actions/resize'), params: Params, body: Type.Ref(ResizeBody), response },
    },
    async (request) => {
      const c = await cluster(request, request.params.ident, own(request));
      const plan = await planResize(s, caller(request), c, request.body, request.apiVersion);
      return outcome(request, 'resize', c.uuid, plan.bill);
    },
  );

  app.post(
    '/dry-run/clusters/:ident/actions/upgrade',
    {
      config: { minVersion: 7, bodyName: 'cluster_upgrade_req' },
      errorHandler: dryRunErrors('upgrade'),
      schema: { ...doc('an upgrade', 'POST /v1/clusters/{ident}/actions/upgrade'), params: Params, body: Type.Ref(UpgradeBody), response },
    },
    async (request) => {
      const c = await cluster(request, request.params.ident, visible(request));
      const plan = await planUpgrade(s, caller(request), c, request.body, request.apiVersion);
      return outcome(request, 'upgrade', c.uuid, plan.bill);
    },
  );

  const ngDeps = nodegroupDeps(s);
  app.post(
    '/dry-run/clusters/:cluster/nodegroups',
    {
      config: { minVersion: 9, bodyName: 'nodegroup', readOnly: NODEGROUP_READ_ONLY },
      preValidation: refuseLateFields,
      errorHandler: dryRunErrors('nodegroup_create'),
      schema: { ...doc('a node group create', 'POST /v1/clusters/{cluster}/nodegroups'), params: Type.Object({ cluster: Ident }), body: Type.Ref(NodeGroupCreate), response },
    },
    async (request) => {
      const plan = await planNodegroupCreate(ngDeps, nodegroupCaller(request), request.params.cluster, request.body);
      return outcome(request, 'nodegroup_create', plan.cluster.uuid, plan.bill);
    },
  );
};
