// The cluster's own Keystone application credential (name = cluster UUID, the caller's roles in
// the project), made at create while the caller's token is at hand. Workers act only through it.
import { errors } from '../../../../domain/errors.js';
import type { AuthContext } from '../../../../keystone/context.js';
import { OpenStackError, requestJson, type Session } from '../../../../openstack/http.js';

export interface ClusterCredential {
  id: string;
  secret: string;
}

interface Caller {
  ctx: AuthContext;
  token: string;
}

const session = (authUrl: string, token: string, timeoutMs: number): Session => ({
  service: 'identity',
  baseUrl: authUrl,
  token,
  timeoutMs,
});

/**
 * Creates the credential, named after the cluster (a rotation adds a suffix: Keystone names are
 * unique per user). A caller whose own application credential may not create others gets a 400.
 */
export async function createClusterCredential(
  authUrl: string,
  who: Caller,
  clusterUuid: string,
  timeoutMs: number,
  suffix = '',
): Promise<ClusterCredential> {
  if (who.ctx.applicationCredential?.restricted) throw errors.restrictedApplicationCredential();
  try {
    const res = await requestJson<{ application_credential: { id: string; secret: string } }>(session(authUrl, who.token, timeoutMs), {
      method: 'POST',
      path: `/users/${encodeURIComponent(who.ctx.userId)}/application_credentials`,
      body: {
        application_credential: {
          name: `${clusterUuid}${suffix}`,
          description: `Credential of cluster ${clusterUuid}: its workers act through it; deleted with the cluster.`,
          roles: who.ctx.roles.map((name) => ({ name })),
          unrestricted: false,
        },
      },
    });
    return { id: res.body.application_credential.id, secret: res.body.application_credential.secret };
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
export async function deleteClusterCredential(authUrl: string, who: Caller, id: string, timeoutMs: number): Promise<void> {
  await requestJson(session(authUrl, who.token, timeoutMs), {
    method: 'DELETE',
    path: `/users/${encodeURIComponent(who.ctx.userId)}/application_credentials/${encodeURIComponent(id)}`,
  }).catch(() => undefined);
}
