// The cluster's application credential (the API makes it with the cluster): every cloud call of the worker
// acts with it. The delete removes it last of the cloud, as the service user, and the row forgets it.
import { ClusterRepo } from '../../src/db/repos/clusters.js';
import type { Step } from '../runner.js';

export const purgeCredential: Step = {
  name: 'credential',
  async run(ctx) {
    const c = ctx.cluster;
    if (!c.app_cred_id) return;
    await ctx.cloudFactory.deleteAppCredential(c.user_id, c.app_cred_id);
    ctx.cloudFactory.forget(c.uuid);
    await new ClusterRepo(ctx.ds).forgetCredential(c.uuid);
    ctx.cluster = { ...c, app_cred_id: null, app_cred_secret: null };
  },
};
