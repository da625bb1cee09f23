// The worker's access to a cluster's Kubernetes API: at the cluster's api_address, trusting the
// cluster CA (and, during a CA rotation, the previous one), as a short-lived system:masters client
// certificate the worker issues itself from the cluster CA (cached per process and CA). On the
// simulator the TCP connection is routed by its admin API; a real cloud is reached directly.
import { cloudsimConnect, KubeClient } from '../kube/api-client.js';
import { issueClientCert } from '../pki/client-cert.js';
import { loadCa } from '../pki/store.js';
import type { KeyPair } from '../pki/ca.js';
import type { DataSource } from 'typeorm';
import type { ClusterRow } from '../db/entities/cluster.js';
import type { CloudFactory } from './cloud.js';
import { StepFailure } from './errors.js';
import type { RunContext } from './step.js';

const identities = new Map<string, Promise<KeyPair & { notAfter: Date }>>();
const RENEW_MS = 10 * 60_000;

function identity(ca: KeyPair, clusterUuid: string): Promise<KeyPair & { notAfter: Date }> {
  const key = `${clusterUuid}:${ca.cert}`;
  let held = identities.get(key);
  const fresh = () => issueClientCert(ca, { commonName: 'magnum:worker', organizations: ['system:masters'], minutes: 60 });
  if (!held) {
    held = fresh();
    identities.set(key, held);
    held.catch(() => identities.delete(key));
  }
  return held.then((id) => {
    if (id.notAfter.getTime() - Date.now() > RENEW_MS) return id;
    identities.delete(key);
    return identity(ca, clusterUuid);
  });
}

/** During a CA rotation: the CAs trusted besides the current one, and the CA the worker's identity comes from. */
export interface KubeAccess {
  trust?: string[];
  identityCa?: KeyPair;
}

/** Registered by the CA rotation for its runs (the previous CA stays in use until the control planes are new). */
export const ACCESS = new Map<string, (ctx: RunContext) => Promise<KubeAccess>>();

/** The cluster's API client for this run. */
export function kubeFor(ctx: RunContext): Promise<KubeClient> {
  return ctx.memo('kube', async () => {
    const access = (await ACCESS.get(ctx.op.kind)?.(ctx)) ?? {};
    const client = await kubeClient(ctx.ds, ctx.cloudFactory, ctx.cluster, access);
    if (!client) throw new StepFailure('NotReady', 'The cluster has no API address or credential yet.', 'control_plane');
    // Its kept-alive connections go with the run (a run every few seconds would otherwise pile them up).
    ctx.onEnd(() => client.close());
    return client;
  });
}

/** A client for `cluster` outside an operation (the health check); undefined without address, CA or credential. */
export async function kubeClient(ds: DataSource, factory: CloudFactory, cluster: ClusterRow, access: KubeAccess = {}): Promise<KubeClient | undefined> {
  const server = cluster.api_address;
  const cloud = factory.forCluster(cluster);
  if (!server || !cloud) return undefined;
  const ca = await loadCa(ds, factory.secretBox, cluster.uuid, 'kubernetes');
  if (!ca) return undefined;
  const id = await identity(access.identityCa ?? ca, cluster.uuid);
  const admin = await cloud.simulatorAdmin();
  return new KubeClient({
    server,
    caCerts: [ca.cert, ...(access.trust ?? [])],
    clientCert: id.cert,
    clientKey: id.key,
    ...(admin ? { connect: cloudsimConnect(admin) } : {}),
    limits: factory.kubeLimits,
  });
}

/** Drops the per-process client identities of a cluster (after a CA rotation or a delete). */
export function forgetKubeIdentity(clusterUuid: string): void {
  for (const k of identities.keys()) if (k.startsWith(`${clusterUuid}:`)) identities.delete(k);
}
