// The rotation of a cluster's application credential (PATCH /v1/credentials/{cluster}). The API made
// the new credential with the rotating member's token and switched the cluster's row to it, keeping
// the replaced one as retired: the worker already acts with the new one. Here the cluster's consumers
// get it, and only once every one of them uses it are the retired credentials deleted:
//   1. every add-on is applied again: the Secrets holding cloud.conf and the credential change, and
//      the workloads reading them carry their new checksum, so their pods roll (OCCM, the Cinder CSI
//      drivers, ExternalDNS, the ingress controller, ...; Manila CSI reads its Secret per request);
//      with Barbican KMS, an agent on each control plane writes the plugin's new cloud.conf and then
//      its manifest, annotated with the conf's checksum (kubelet restarts the plugin);
//   2. the worker waits until every pod of those workloads runs the new template and is Ready, no pod
//      of the old one is left (not even terminating), and every control plane's KMS plugin is the
//      restarted one; past ROLLOUT_DEADLINE_MS the operation fails and the old credential stays;
//   3. the agent goes, and the retired credentials are deleted as the service user under their owners.
// Events tell each phase.
import type { K8sObject } from '../../src/bootstrap/addons/framework.js';
import { SECRETS_CHECKSUM, secretsReadBy, templateOf } from '../../src/bootstrap/addons/secret-checksums.js';
import { KMS_CONF_CHECKSUM, KMS_SYNC_NAME, kmsCredentialSync, kmsMirrorPod } from '../../src/features/kms/render.js';
import { nodeReady, type KubeClient } from '../../src/kube/api-client.js';
import { StepFailure, Wait } from '../../src/steps/errors.js';
import { kubeFor } from '../../src/steps/kube.js';
import type { OperationSpec, RunContext, Step } from '../../src/steps/step.js';
import { applyAddons, cloudCredential, renderClusterAddons } from './bootstrap.js';
import { clusterSpec } from '../../src/steps/context.js';
import { deleteRetired } from './credential.js';
import { kmsKeyId } from '../../src/features/kms/steps.js';

/** How long the consumers may take to use the new credential (from the rotation's acceptance). */
export const ROLLOUT_DEADLINE_MS = 20 * 60_000;

/** A workload whose pods read a Secret holding the credential, and the checksum its pods carry once rolled. */
export interface Consumer {
  kind: string;
  namespace: string;
  name: string;
  selector: Record<string, string>;
  checksum: string;
}

const decoded = (o: K8sObject): string[] => Object.values((o.data ?? {}) as Record<string, string>).map((v) => Buffer.from(v, 'base64').toString('utf8'));

/** The workloads among `objects` whose pods read a Secret (of `objects`) that holds `credentialId`. */
export function credentialConsumers(objects: K8sObject[], credentialId: string): Consumer[] {
  const holders = new Set(objects.filter((o) => o.kind === 'Secret' && decoded(o).some((v) => v.includes(credentialId))).map((o) => `${o.metadata.namespace}/${o.metadata.name}`));
  const out: Consumer[] = [];
  for (const o of objects) {
    const t = templateOf(o);
    const checksum = t?.metadata?.annotations?.[SECRETS_CHECKSUM];
    const namespace = o.metadata.namespace ?? 'default';
    if (!t || !checksum || !secretsReadBy(t.spec).some((n) => holders.has(`${namespace}/${n}`))) continue;
    const selector = ((o.spec as { selector?: { matchLabels?: Record<string, string> } }).selector?.matchLabels) ?? {};
    out.push({ kind: o.kind, namespace, name: o.metadata.name, selector, checksum });
  }
  return out;
}

interface Plan {
  credential: string;
  objects: K8sObject[];
  consumers: Consumer[];
  /** With KMS: the agent's objects and the checksum each plugin's manifest carries once restarted. */
  kms?: { objects: K8sObject[]; checksum: string };
}

/** What the rotation applies and waits for, rendered once per run with the cluster's current credential. */
function plan(ctx: RunContext): Promise<Plan> {
  return ctx.memo('credential-plan', async () => {
    const rendered = await renderClusterAddons(ctx);
    const objects = rendered.flatMap((r) => r.objects);
    const credential = ctx.cluster.app_cred_id!;
    const spec = await clusterSpec(ctx);
    const kms = spec.kms.enabled ? kmsCredentialSync(spec, cloudCredential(ctx), await kmsKeyId(ctx, 'addons')) : undefined;
    return { credential, objects, consumers: credentialConsumers(objects, credential), ...(kms ? { kms } : {}) };
  });
}

const describe = (c: Consumer): string => `${c.kind} ${c.namespace}/${c.name}`;

const publish: Step = {
  name: 'credential_publish',
  condition: 'addons',
  async run(ctx) {
    const p = await plan(ctx);
    const kube = await kubeFor(ctx);
    await applyAddons(ctx, kube, [{ name: 'all', order: 0, objects: p.objects }]);
    for (const o of p.kms?.objects ?? []) await kube.apply(o, 'magnum');
    const readers = [...p.consumers.map(describe), ...(p.kms ? ['the KMS plugin of each control plane'] : [])];
    await ctx.event('credential', 'CredentialPublished', `The cluster's Secrets now hold application credential ${p.credential}; restarting what reads them: ${readers.join(', ') || 'nothing'}.`);
  },
};

/** What still runs with a previous credential, in words; undefined once none does. */
async function lagging(kube: KubeClient, p: Plan): Promise<string[]> {
  const out: string[] = [];
  for (const c of p.consumers) {
    const w = await kube.get<K8sObject & { status?: Record<string, number> }>('apps/v1', c.kind, c.namespace, c.name);
    if (!w) {
      out.push(`${describe(c)} is missing`);
      continue;
    }
    const selector = Object.entries(c.selector).map(([k, v]) => `${k}=${v}`).join(',');
    const pods = await kube.list<K8sObject & { status?: { conditions?: { type: string; status: string }[] } }>('v1', 'Pod', c.namespace, selector);
    const desired = c.kind === 'DaemonSet' ? (w.status?.desiredNumberScheduled ?? 0) : ((w.spec as { replicas?: number }).replicas ?? 1);
    const fresh = pods.filter((x) => x.metadata.annotations?.[SECRETS_CHECKSUM] === c.checksum && !('deletionTimestamp' in x.metadata) && podReady(x));
    const stale = pods.filter((x) => x.metadata.annotations?.[SECRETS_CHECKSUM] !== c.checksum);
    const observed = (w.status?.observedGeneration ?? 0) >= ((w.metadata as { generation?: number }).generation ?? 1);
    if (!observed || stale.length > 0 || fresh.length < desired) out.push(`${describe(c)} (${fresh.length} of ${desired} pod(s) restarted and Ready${stale.length > 0 ? `, ${stale.length} still of the previous one` : ''})`);
  }
  if (p.kms) {
    for (const n of (await kube.listNodes()).filter((x) => 'node-role.kubernetes.io/control-plane' in (x.metadata.labels ?? {}))) {
      const mirror = await kube.get<K8sObject & { status?: { conditions?: { type: string; status: string }[] } }>('v1', 'Pod', 'kube-system', kmsMirrorPod(n.metadata.name));
      if (!nodeReady(n) || mirror?.metadata.annotations?.[KMS_CONF_CHECKSUM] !== p.kms.checksum || !podReady(mirror)) out.push(`the KMS plugin of ${n.metadata.name}`);
    }
  }
  return out;
}

const podReady = (p: { status?: { conditions?: { type: string; status: string }[] } }): boolean => (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

const rollout: Step = {
  name: 'credential_rollout',
  condition: 'addons',
  after: ['credential_publish'],
  async run(ctx) {
    const p = await plan(ctx);
    const waiting = await lagging(await kubeFor(ctx), p);
    if (waiting.length === 0) {
      await ctx.event('credential', 'CredentialInUse', `Every consumer in the cluster uses application credential ${p.credential}.`);
      return;
    }
    const what = `Waiting for ${waiting.join(', ')} to use application credential ${p.credential}.`;
    if (Date.now() - new Date(ctx.op.created_at).getTime() > ROLLOUT_DEADLINE_MS) {
      throw new StepFailure('CredentialRolloutTimeout', `${waiting.join(', ')} did not use application credential ${p.credential} within ${ROLLOUT_DEADLINE_MS / 60_000} minutes; the previous credential is kept.`, 'addons');
    }
    const c = ctx.cluster.conditions.addons;
    if (c?.reason !== 'CredentialRollout' || c.message !== what) await ctx.setCondition('addons', 'Unknown', 'CredentialRollout', what);
    throw new Wait(ctx.pollMs, 'consumers still use the previous credential');
  },
};

/** The KMS agent has done its work (its result was seen): its DaemonSet and its copy of the credential go. */
const removeAgent: Step = {
  name: 'credential_agent',
  after: ['credential_rollout'],
  async run(ctx) {
    if (!(await plan(ctx)).kms) return;
    const kube = await kubeFor(ctx);
    await kube.delete('apps/v1', 'DaemonSet', 'kube-system', KMS_SYNC_NAME);
    await kube.delete('v1', 'Secret', 'kube-system', KMS_SYNC_NAME);
  },
};

const retire: Step = {
  name: 'credential_retire',
  condition: 'addons',
  after: ['credential_rollout'],
  async run(ctx) {
    const current = ctx.cluster.app_cred_id;
    for (const r of await deleteRetired(ctx, (x) => x.id !== current)) {
      await ctx.event('credential', 'CredentialDeleted', `Application credential ${r.id} (of user ${r.user_id}) is deleted: nothing in the cluster uses it any more.`);
    }
    ctx.cloudFactory.forget(ctx.cluster.uuid);
    await ctx.setCondition('addons', 'True', 'Applied', `Add-ons applied; they use application credential ${current}.`);
  },
};

export const rotateCredentialOperation: OperationSpec = {
  kind: 'rotate_credential',
  steps: [publish, rollout, removeAgent, retire],
};
