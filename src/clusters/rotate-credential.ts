// PATCH /v1/credentials/{cluster} (1.12+): a rotation of the cluster's application credential, as an
// operation (rotate_credential). Only the caller's token may make a credential of the caller (Keystone
// lets no one else create a user's application credentials), so the new one is made here, owned by
// the caller, before the intent is written: in one transaction (beginOperation) the row switches to
// it and records its owner, the credential it replaces is kept with its owner as retired, and the
// operation is queued. The worker then gives the new credential to everything in the cluster that
// uses one and deletes the retired ones once nothing does (workers/cluster/rotate-credential.ts).
// The table (src/domain/transitions.ts) is consulted before anything is made, and again under the
// row's lock; a refusal deletes the credential just made. A caller whose roles Octavia's policy refuses may not
// rotate the credential of a cluster with a load balancer (the new one would lack them), naming the role.
import type { ClusterRow } from '../db/entities/cluster.js';
import { errors } from '../domain/errors.js';
import { judge } from '../domain/transitions.js';
import { beginOperation, started, type OperationDeps } from '../operations/begin.js';
import { enforce } from '../domain/policy.js';
import { createClusterCredential, deleteClusterCredential } from './credential.js';
import { lacksLoadBalancerRole, LB_ROLE } from '../preflight/lb-role.js';
import type { ClusterRepo } from '../db/repos/clusters.js';
import type { OperationRepo } from '../db/repos/operations.js';
import type { CallerClouds } from '../openstack/caller.js';
import type { SecretBox } from '../security/secret-box.js';
import type { Caller } from './lookup.js';

export interface RotateCredentialDeps {
  clouds: CallerClouds;
  secretBox: Pick<SecretBox, 'seal'>;
  clusters: Pick<ClusterRepo, 'update'>;
  operations: Pick<OperationRepo, 'active'>;
  outbox: OperationDeps;
}

export async function startRotateCredential(s: RotateCredentialDeps, who: Caller, c: ClusterRow): Promise<void> {
  enforce(who.ctx, 'credential:rotate', c);
  // Refused now, nothing is made in Keystone.
  const early = judge('rotate_credential', { name: c.name, uuid: c.uuid, status: c.status, hibernated: c.hibernation === 'hibernated' }, (await s.operations.active(s.outbox.db.manager, c.uuid)).map((o) => o.kind));
  if (early.outcome === 'refused') throw early.error;
  // The new credential has the caller's roles: one Octavia's policy would refuse could not manage (or delete) the
  // cluster's load balancer.
  if (c.master_lb_enabled && (await lacksLoadBalancerRole(who, s.clouds.for(who), c.uuid))) {
    throw errors.rotationRoleMissing('load-balancer', LB_ROLE, "the cluster's load balancer (master_lb_enabled)", who.ctx.projectId ?? c.project_id);
  }
  const fresh = await createClusterCredential(s.clouds, who, c.uuid, `-rotated-${Date.now()}`);
  try {
    const begun = await beginOperation(s.outbox, c.uuid, {
      kind: 'rotate_credential',
      change: async (em, locked) => {
        const replaced = locked.app_cred_id ? [{ id: locked.app_cred_id, user_id: locked.app_cred_user_id ?? locked.user_id }] : [];
        await s.clusters.update(
          c.uuid,
          {
            app_cred_id: fresh.id,
            app_cred_secret: s.secretBox.seal(fresh.secret, `app-cred:${c.uuid}`),
            app_cred_user_id: who.ctx.userId,
            retired_app_creds: [...locked.retired_app_creds, ...replaced],
          },
          em,
        );
        return locked.app_cred_id;
      },
      params: (replaced) => ({ credential: fresh.id, owner: who.ctx.userId, replaces: replaced }),
      event: (replaced) => ({
        reason: 'CredentialRotationAccepted',
        message: `Application credential ${fresh.id} of ${who.ctx.userName} replaces ${replaced ?? 'none'}: the cluster's consumers get it, then ${replaced ? 'the replaced one is deleted' : 'the rotation ends'}.`,
      }),
    });
    started(begun, () => errors.notFound('Cluster', c.uuid));
  } catch (e) {
    await deleteClusterCredential(s.clouds, who, fresh.id);
    throw e;
  }
}
