// The cluster's application credentials (the API makes them: at create, and at a rotation with the
// rotating member's token): every cloud call of the worker acts with the current one. Each is deleted
// as the service user (Keystone's identity:delete_application_credential is admin_or_owner) under
// its owner's user id, which the row records: a rotation by another member makes a credential owned
// by that member. The delete removes the retired ones and then the current one, last of the cloud:
// the row first retires it (one UPDATE), then Keystone deletes it, so a run killed between the two
// leaves a retired credential for the next run to delete, not a current one that no longer logs in
// (every later delete would then fail on a 401 and the row stay forever).
import type { RetiredCredential } from '../../src/db/entities/cluster.js';
import type { RunContext, Step } from '../../src/steps/step.js';

/** Deletes the credentials a rotation replaced, each forgotten by the row at once; what it deleted (already gone included). */
export async function deleteRetired(ctx: RunContext, which: (r: RetiredCredential) => boolean = () => true): Promise<RetiredCredential[]> {
  const done: RetiredCredential[] = [];
  for (const r of ctx.cluster.retired_app_creds.filter(which)) {
    await ctx.cloudFactory.deleteAppCredential(r.user_id, r.id);
    await ctx.hooks?.afterCredentialDelete?.(r.id);
    await ctx.repos.clusters.forgetRetired(ctx.cluster.uuid, r.id);
    ctx.cluster = { ...ctx.cluster, retired_app_creds: ctx.cluster.retired_app_creds.filter((x) => x.id !== r.id) };
    done.push(r);
  }
  return done;
}

export const purgeCredential: Step = {
  name: 'credential',
  async run(ctx) {
    const c = ctx.cluster;
    if (c.app_cred_id) {
      const retired = await ctx.repos.clusters.retireCredential(c.uuid);
      ctx.cloudFactory.forget(c.uuid);
      ctx.cluster = { ...c, app_cred_id: null, app_cred_secret: null, app_cred_user_id: null, retired_app_creds: retired ?? c.retired_app_creds };
    }
    await deleteRetired(ctx);
  },
};
