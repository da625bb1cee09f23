// The cluster's application credentials (the API makes them: at create, and at a rotation with the
// rotating member's token): every cloud call of the worker acts with the current one. Each is deleted
// as the service user (Keystone's identity:delete_application_credential is admin_or_owner) under
// its owner's user id, which the row records: a rotation by another member makes a credential owned
// by that member. The delete removes the retired ones and then the current one, last of the cloud.
import type { RetiredCredential } from '../../src/db/entities/cluster.js';
import type { RunContext, Step } from '../runner.js';

/** Deletes the credentials a rotation replaced, each forgotten by the row at once; what it deleted (already gone included). */
export async function deleteRetired(ctx: RunContext, which: (r: RetiredCredential) => boolean = () => true): Promise<RetiredCredential[]> {
  const done: RetiredCredential[] = [];
  for (const r of ctx.cluster.retired_app_creds.filter(which)) {
    await ctx.cloudFactory.deleteAppCredential(r.user_id, r.id);
    await ctx.repos.clusters.forgetRetired(ctx.cluster.uuid, r.id);
    ctx.cluster = { ...ctx.cluster, retired_app_creds: ctx.cluster.retired_app_creds.filter((x) => x.id !== r.id) };
    done.push(r);
  }
  return done;
}

export const purgeCredential: Step = {
  name: 'credential',
  async run(ctx) {
    await deleteRetired(ctx);
    const c = ctx.cluster;
    if (!c.app_cred_id) return;
    await ctx.cloudFactory.deleteAppCredential(c.app_cred_user_id ?? c.user_id, c.app_cred_id);
    ctx.cloudFactory.forget(c.uuid);
    await ctx.repos.clusters.forgetCredential(c.uuid);
    ctx.cluster = { ...c, app_cred_id: null, app_cred_secret: null, app_cred_user_id: null };
  },
};
