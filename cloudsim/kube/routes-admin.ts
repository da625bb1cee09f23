// GET /v1/kube/endpoints?address=A&port=6443 on the simulator's admin API: where a connection to
// a cluster's API address goes ({"host": "127.0.0.1", "port": N}), 404 when nothing answers there.
// Any project-scoped caller may ask (clusters' application credentials do), for its own project's
// clusters; an admin for any.
import type { FastifyInstance } from 'fastify';
import { SimError } from '../common/errors.js';
import { one, type RawQuery } from '../common/query.js';
import { callerOf } from '../common/service-app.js';
import type { KubeTarget } from './index.js';

export interface KubeEndpoints {
  resolve(address: string, port: number, projectId?: string): KubeTarget | undefined;
  /** Every server's kubeadm: role, node name, state (discovering, joining, joined, failed...), attempts, last error. */
  agentsOf(projectId?: string): unknown[];
}

export function registerKubeEndpointRoutes(scope: FastifyInstance, kube: KubeEndpoints): void {
  scope.get('/v1/kube/endpoints', async (request) => {
    const q = request.query as RawQuery;
    const address = one(q, 'address');
    const port = Number(one(q, 'port') ?? '6443');
    if (!address) throw new SimError(400, 'Query parameter address is required.');
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new SimError(400, `Invalid port ${one(q, 'port')}.`);
    const caller = callerOf(request);
    const target = kube.resolve(address, port, caller.isAdmin ? undefined : caller.projectId);
    if (!target) throw new SimError(404, `No Kubernetes API answers at ${address}:${port}.`);
    return target;
  });
}
