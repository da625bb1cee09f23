// PATCH /v1/credentials/{cluster} (1.12+): a new application credential for the cluster, made with
// the caller's token and owned by the caller; the row records whose it is. The credential it replaces
// is retired (kept, with its owner, until it can be deleted as the service user). Refused while an
// operation runs (its steps act through the current credential).
import type { ClusterRow } from '../../../../db/entities/cluster.js';
import { errors } from '../../../../domain/errors.js';
import { enforce } from '../../../policy.js';
import type { Services } from '../../../services.js';
import { createClusterCredential, deleteClusterCredential } from './credential.js';
import type { Caller } from './preflight.js';

export async function rotateCredential(s: Services, who: Caller, c: ClusterRow): Promise<void> {
  enforce(who.ctx, 'credential:rotate', c);
  const fresh = await createClusterCredential(s.clouds, who, c.uuid, `-rotated-${Date.now()}`);
  try {
    await s.db.transaction(async (em) => {
      const locked = await s.clusters.lock(em, c.uuid);
      if (!locked) throw errors.notFound('Cluster', c.uuid);
      const [active] = await s.operations.active(em, c.uuid);
      if (active) throw errors.operationInProgress(locked.name, active.kind);
      const retired = locked.app_cred_id ? [...locked.retired_app_creds, { id: locked.app_cred_id, user_id: locked.app_cred_user_id ?? locked.user_id }] : locked.retired_app_creds;
      const now = new Date();
      await s.clusters.update(
        c.uuid,
        { app_cred_id: fresh.id, app_cred_secret: s.secretBox.seal(fresh.secret, `app-cred:${c.uuid}`), app_cred_user_id: who.ctx.userId, retired_app_creds: retired, updated_at: now },
        em,
      );
      const message = `The cluster now acts through application credential ${fresh.id} of user ${who.ctx.userName}${locked.app_cred_id ? `; ${locked.app_cred_id} is retired` : ''}.`;
      await s.events.insert({ cluster_id: c.uuid, operation_id: null, at: now, type: 'credential', reason: 'CredentialRotated', message, severity: 'info' }, em);
    });
  } catch (e) {
    await deleteClusterCredential(s.clouds, who, fresh.id);
    throw e;
  }
}
