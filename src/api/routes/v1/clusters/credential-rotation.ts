// PATCH /v1/credentials/{cluster} (1.12+): a new application credential for the cluster, made with
// the caller's token; the old one is deleted once the new one is stored. Refused while an
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
  let old: string | null = null;
  try {
    await s.db.transaction(async (em) => {
      const locked = await s.clusters.lock(em, c.uuid);
      if (!locked) throw errors.notFound('Cluster', c.uuid);
      const [active] = await s.operations.active(em, c.uuid);
      if (active) throw errors.operationInProgress(locked.name, active.kind);
      old = locked.app_cred_id;
      const now = new Date();
      await s.clusters.update(c.uuid, { app_cred_id: fresh.id, app_cred_secret: s.secretBox.seal(fresh.secret, `app-cred:${c.uuid}`), updated_at: now }, em);
      const message = `The cluster now acts through application credential ${fresh.id}${old ? `; ${old} is deleted` : ''}.`;
      await s.events.insert({ cluster_id: c.uuid, operation_id: null, at: now, type: 'credential', reason: 'CredentialRotated', message, severity: 'info' }, em);
    });
  } catch (e) {
    await deleteClusterCredential(s.clouds, who, fresh.id);
    throw e;
  }
  if (old) await deleteClusterCredential(s.clouds, who, old);
}
