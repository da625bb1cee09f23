// Dry-runs (an extension): POST /v1/dry-run/<path> answers what POST /v1/<path> would, writing nothing —
// for a cluster create, a resize, an upgrade (routes/v1/clusters/dry-run.ts) and a node group create
// (routes/v1/nodegroups/dry-run.ts). Each calls the use case's own plan (src/clusters/: the same checks in the
// same order, the same bill against every quota), then the same transition table (wouldBegin): the two cannot
// disagree. 200 with the bill, the label warnings, and the status and Magnum error envelope the real call would
// answer. What stops the dry-run itself is its own answer: no token (401), a policy refusing the operation
// (403), a microversion (406), the cloud down (503). This file holds what they share.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { credentialRefusal } from '../clusters/credential.js';
import { ApiError, errors } from '../domain/errors.js';
import type { OperationKind } from '../domain/operations.js';
import { wouldBegin } from '../operations/begin.js';
import { shortage, type Assessment } from '../preflight/assess.js';
import { envelope, toApiError } from './plugins/envelope.js';
import { errorResponses, Nullable } from './schemas/common.js';
import { caller } from './request-caller.js';

const BillLine = Type.Object({
  quota: Type.String({ description: 'The quota, by its service’s name: clusters (Magnum), instances, cores, ram (MiB), server_groups, server_group_members, volumes, gigabytes, network, subnet, router, port, floatingip, security_group, security_group_rule, load_balancer, listener, pool, member, health_monitor, zone_recordsets, secrets.' }),
  service: Type.String({ description: 'The service type that keeps it.' }),
  needed: Type.Integer({ description: 'What the request takes (an upgrade’s or a rotation’s peak while it rolls).' }),
  in_use: Nullable(Type.Integer({ description: 'What the project holds now; null when the service does not report it (not checked).' })),
  limit: Nullable(Type.Integer({ description: '−1 unlimited; null unknown.' })),
  held: Type.Integer({ description: 'What operations accepted before hold of it until what they make exists; it counts as in use.' }),
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

const TAGS = ['dry-run'];

/** Each dry-run's 200 and the errors of the dry-run itself. */
export const DRY_RUN_RESPONSE = { 200: Type.Ref(DryRun), ...errorResponses(401, 403, 406, 503) };

/** The dry-run's documentation: its own tag, what it would call. */
export const dryRunDoc = (what: string, real: string) => ({ tags: TAGS, summary: `Dry-run of ${what} (an extension): ${real} without writing anything` });

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

export function dryRunErrors(operation: string) {
  return (err: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) => {
    const e = toApiError(err, request);
    if (!e || ownError(e)) throw err;
    return reply.code(200).send(answer(operation, e, undefined));
  };
}

/** After a plan: its shortage, else what the transition table says now. */
export async function dryRunOutcome(request: FastifyRequest, operation: OperationKind, clusterId: string | undefined, bill: Assessment, warnings: string[] = []): Promise<DryRunT> {
  const short = shortage(bill);
  if (short) return answer(operation, short, bill, warnings);
  // A create then gives the cluster its credential: the caller must be allowed to.
  if (clusterId === undefined) return answer(operation, credentialRefusal(caller(request)), bill, warnings);
  const refused = await wouldBegin(request.server.services.outbox, clusterId, operation);
  return answer(operation, refused === 'gone' ? errors.notFound('Cluster', clusterId) : refused, bill, warnings);
}
