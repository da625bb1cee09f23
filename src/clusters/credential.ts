// The cluster's own Keystone application credential (name = cluster UUID, of the caller's roles in
// the project only those its consumers need: src/keystone/cluster-credential.ts), made at create
// while the caller's token is at hand. Workers act only through it.
import { errors, type ApiError } from '../domain/errors.js';
import type { CallerClouds, CloudCaller } from '../openstack/caller.js';
import { CLUSTER_CREDENTIAL_ROLES, clusterCredentialRoles } from '../keystone/cluster-credential.js';
import type { AuthContext } from '../keystone/context.js';
import { OpenStackError } from '../openstack/errors.js';

export interface ClusterCredential {
  id: string;
  secret: string;
}

/** Why the caller may not give a cluster its credential (a restricted credential, no usable role); undefined when it may. */
export function credentialRefusal(who: CloudCaller): ApiError | undefined {
  if (who.ctx.applicationCredential?.restricted) return errors.restrictedApplicationCredential();
  if (clusterCredentialRoles(who.ctx.roles).length === 0) return errors.clusterCredentialRole(CLUSTER_CREDENTIAL_ROLES);
  return undefined;
}

/**
 * Creates the credential, named after the cluster (a rotation adds a suffix: Keystone names are
 * unique per user). A caller whose own application credential may not create others gets a 400.
 */
export async function createClusterCredential(clouds: CallerClouds, who: CloudCaller, clusterUuid: string, suffix = ''): Promise<ClusterCredential> {
  const refused = credentialRefusal(who);
  if (refused) throw refused;
  const roles = clusterCredentialRoles(who.ctx.roles);
  try {
    const made = await clouds.for(who).keystone().createApplicationCredential({
      name: `${clusterUuid}${suffix}`,
      description: `Credential of cluster ${clusterUuid}: its workers act through it; deleted with the cluster.`,
      roles: roles.map((name) => ({ name })),
    });
    return { id: made.id, secret: made.secret };
  } catch (e) {
    if (e instanceof OpenStackError) {
      // Keystone refuses restricted application credentials (and some policies refuse users) with 403.
      if (e.kind === 'forbidden') throw errors.restrictedApplicationCredential();
      if (e.retryable) throw errors.keystoneUnavailable();
    }
    throw e;
  }
}

/** Removes a credential made for a create that did not commit (best effort; the name says whose it was). */
export async function deleteClusterCredential(clouds: CallerClouds, who: CloudCaller, id: string): Promise<void> {
  await clouds
    .for(who)
    .keystone()
    .deleteApplicationCredential(id)
    .catch(() => undefined);
}
