// The periodic health check (issue 6 item 6, k8s-bootstrap §1.8): for each settled cluster with an
// API address, /readyz through its endpoint and every Node's Ready condition. health_status is
// HEALTHY (API ok, all nodes Ready), UNHEALTHY (an answer that is not), UNKNOWN (no answer);
// health_status_reason as Magnum writes it ({"api": "ok", "<node>.Ready": "True"}), with the time.
// Clusters with auto_healing_enabled also get their unhealthy workers replaced (auto-heal.ts), and those with
// auto_scaling_enabled their worker groups sized to their pods (autoscale.ts).
import type { DataSource } from 'typeorm';
import type { ClusterRow } from '../src/db/entities/cluster.js';
import { ClusterRepo } from '../src/db/repos/clusters.js';
import { STANDING_STATUSES, type Condition } from '../src/domain/cluster-status.js';
import { nodeReady, type KubeClient } from '../src/kube/api-client.js';
import type { CloudFactory } from '../src/steps/cloud.js';
import { autoHeal } from '../src/features/auto-healing/heal.js';
import { autoScale } from '../src/features/auto-scaling/scale.js';
import { clusterView } from '../src/steps/cluster-view.js';
import { kubeClient } from '../src/steps/kube.js';

export interface HealthResult {
  status: 'HEALTHY' | 'UNHEALTHY' | 'UNKNOWN';
  reason: Record<string, string>;
}

export async function checkCluster(ds: DataSource, factory: CloudFactory, c: ClusterRow, kube?: KubeClient): Promise<HealthResult> {
  kube ??= await kubeClient(ds, factory, c);
  if (!kube) return { status: 'UNKNOWN', reason: { api: 'no API address or credential' } };
  let ready = false;
  try {
    ready = await kube.readyz();
  } catch (e) {
    return { status: 'UNKNOWN', reason: { api: (e as Error).message } };
  }
  if (!ready) return { status: 'UNKNOWN', reason: { api: 'no answer from /readyz' } };
  const reason: Record<string, string> = { api: 'ok' };
  let healthy = true;
  for (const n of await kube.listNodes()) {
    const ok = nodeReady(n);
    reason[`${n.metadata.name}.Ready`] = ok ? 'True' : 'False';
    healthy &&= ok;
  }
  return { status: healthy ? 'HEALTHY' : 'UNHEALTHY', reason };
}


/**
 * One pass over the clusters that are not being changed, a page of them at a time; returns how many
 * were checked. `stillOurs` is asked between clusters: false ends the pass early (its lock was lost).
 */
export async function healthPass(ds: DataSource, factory: CloudFactory, stillOurs: () => boolean = () => true): Promise<number> {
  const repo = new ClusterRepo(ds);
  let checked = 0;
  for (let page = await repo.withApiIn(STANDING_STATUSES); page.length > 0; page = await repo.withApiIn(STANDING_STATUSES, page.at(-1)!.id)) {
    for (const c of page) {
      if (!stillOurs()) return checked;
      await checkOne(ds, factory, repo, c);
      checked++;
    }
  }
  return checked;
}

async function checkOne(ds: DataSource, factory: CloudFactory, repo: ClusterRepo, c: ClusterRow): Promise<void> {
  const now = new Date();
  const kube = await kubeClient(ds, factory, c).catch(() => undefined);
  const h: HealthResult = await checkCluster(ds, factory, c, kube).catch((e: unknown) => ({ status: 'UNKNOWN' as const, reason: { api: (e as Error).message } }));
  // Healing and scaling read the cluster once between them, and judge only through an API that answers.
  const view = h.status === 'UNKNOWN' ? undefined : await clusterView(ds, c, kube, factory.forCluster(c));
  const notRun = (e: unknown) => `not run: ${(e as Error).message}`;
  const heal = view ? await autoHeal(ds, c, view, now).catch((e: unknown) => ({ unhealthy: c.unhealthy_since, note: notRun(e) })) : { unhealthy: c.unhealthy_since };
  // Scaling after healing, which goes first when both want to act.
  const scale = view ? await autoScale(ds, c, view, now).catch((e: unknown) => ({ note: notRun(e) })) : {};
  // All above settle whatever happens: the client's kept-alive connections can go now.
  kube?.close();
  if (heal.note) h.reason.auto_healing = heal.note;
  if (scale.note) h.reason.auto_scaling = scale.note;
  const condition: Condition = { status: h.status === 'HEALTHY' ? 'True' : h.status === 'UNHEALTHY' ? 'False' : 'Unknown', reason: h.status === 'HEALTHY' ? 'Healthy' : h.status === 'UNHEALTHY' ? 'NodesNotReady' : 'Unreachable', message: JSON.stringify(h.reason), since: now.toISOString() };
  // Only the health columns and condition: an operation that started meanwhile owns the rest.
  await repo.recordHealth(c.uuid, { status: h.status, reason: h.reason, checkedAt: now, condition, unhealthySince: heal.unhealthy });
}
