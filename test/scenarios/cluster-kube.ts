// A test's client of a cluster's own Kubernetes API, as its users reach it: at api_address, with a
// system:masters certificate of the cluster CA (the worker's client, routed by the simulator).
import assert from 'node:assert/strict';
import { ClusterEntity } from '../../src/db/entities/cluster.js';
import type { KubeClient } from '../../src/kube/api-client.js';
import { CloudFactory } from '../../src/steps/cloud.js';
import { kubeClient } from '../../src/steps/kube.js';
import type { Harness } from './lifecycle-support.js';

const clients: KubeClient[] = [];

export async function clusterKube(h: Harness, uuid: string): Promise<KubeClient> {
  const db = h.t.app.services.db;
  const row = await db.getRepository(ClusterEntity).findOneByOrFail({ uuid });
  const kube = await kubeClient(db, new CloudFactory(h.t.config), row);
  assert.ok(kube, `cluster ${uuid} has an API`);
  clients.push(kube);
  return kube;
}

/** Closes the clients made so far (their kept-alive connections would hold the process). */
export function closeClusterKubes(): void {
  for (const c of clients.splice(0)) c.close();
}

/** A Deployment of `replicas` pods labelled app=<name>, pinned to `node` when given. */
export function deployment(name: string, replicas: number, opts: { node?: string; graceSeconds?: number } = {}) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          ...(opts.node ? { nodeSelector: { 'kubernetes.io/hostname': opts.node } } : {}),
          ...(opts.graceSeconds !== undefined ? { terminationGracePeriodSeconds: opts.graceSeconds } : {}),
          containers: [{ name, image: 'nginx:1.29.0' }],
        },
      },
    },
  };
}
