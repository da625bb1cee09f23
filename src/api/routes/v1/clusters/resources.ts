// GET /v1/clusters/{ident}/resources (an extension): what a delete of the cluster would remove or
// keep now, for the portal's delete preview. From the resource ledger (cluster_resource: what the
// workers created; its servers checked against Nova, src/clusters/nodes.ts) and from the cloud with
// the caller's token: the volumes and shares the cluster's
// CSI drivers made (kept unless the labels cinder_csi_delete_volumes / manila_csi_delete_shares ask
// otherwise, as the delete does), the load balancers its cloud provider made for Services, and the
// cluster's application credential. A cloud that does not answer is named, never fatal.
import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { ClusterRow } from '../../../../db/entities/cluster.js';
import { ResourceRepo } from '../../../../db/repos/resources.js';
import { clusterNodesNow } from '../../../../clusters/nodes.js';
import { errors } from '../../../../domain/errors.js';
import { bool } from '../../../../cluster-spec/labels/types.js';
import { enforce } from '../../../../domain/policy.js';
import { errorResponses, Ident } from '../../../schemas/common.js';
import { caller, scopeOf } from '../../../request-caller.js';

export const ClusterResources = Type.Object(
  {
    cluster_uuid: Type.String({ format: 'uuid' }),
    name: Type.String(),
    status: Type.String(),
    resources: Type.Array(
      Type.Object({
        service: Type.String({ description: 'Catalog type of the owning service (compute, network, load-balancer, block-storage, dns, key-manager, sharev2, identity).' }),
        type: Type.String({ description: 'server, volume, loadbalancer, floatingip, network, subnet, router, security_group, recordset, secret, share, application_credential, ...' }),
        id: Type.String(),
        name: Type.Union([Type.String(), Type.Null()]),
        action: Type.Union([Type.Literal('delete'), Type.Literal('keep')]),
        source: Type.Union([Type.Literal('ledger'), Type.Literal('cloud'), Type.Literal('cluster')]),
        note: Type.Optional(Type.String()),
      }),
    ),
    unreachable: Type.Array(Type.String({ description: 'Services that could not be asked; their resources may be missing from the list.' })),
  },
  { $id: 'ClusterResources' },
);

/** The delete's reading of a boolean label (the label parser's spellings; a bad value keeps the data, as the delete does). */
const truthy = (v: string | undefined): boolean => {
  if (v === undefined) return false;
  try {
    return bool.parse(v);
  } catch {
    return false;
  }
};

export const clusterResourceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const s = app.services;
  const ledgerRepo = new ResourceRepo(s.db);

  app.get(
    '/clusters/:ident/resources',
    {
      schema: {
        tags: ['clusters'],
        summary: 'What deleting the cluster removes and keeps (an extension, for a delete preview)',
        params: Type.Object({ ident: Ident }),
        response: { 200: Type.Ref(ClusterResources), ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request) => {
      const found = await s.clusters.find(request.params.ident, scopeOf(request));
      if (found === 'ambiguous') throw errors.ambiguousName('clusters', 'cluster');
      if (!found) throw errors.notFound('Cluster', request.params.ident);
      enforce(request.auth, 'cluster:get', found);
      const c: ClusterRow = found;
      // Servers as they are now (a replaced node's ledger row may outlive it); the rest from the ledger.
      const now = await clusterNodesNow({ clouds: s.clouds, ledger: ledgerRepo }, caller(request), c, (reason) =>
        request.log.warn({ service: 'compute', reason }, 'delete preview: a service did not answer'),
      );
      const ledger = (await ledgerRepo.live(c.uuid)).filter((r) => r.type !== 'server');
      const resources: Static[] = [
        ...now.nodes.map((n) => ({
          service: 'compute', type: 'server', id: n.id, name: n.name, action: 'delete' as const, source: n.source === 'cloud' ? ('cloud' as const) : ('ledger' as const),
          ...(n.source === 'cloud' ? { note: 'Carries the cluster’s tag in Nova but is not in its records: deleted all the same.' } : {}),
        })),
        ...ledger.map((r) => ({ service: r.service, type: r.type, id: r.cloud_id, name: r.name, action: 'delete' as const, source: 'ledger' as const })),
      ];
      const unreachable: string[] = [...now.unreachable];
      const cloud = s.clouds.for(caller(request));
      const ask = async (service: string, fn: () => Promise<void>) => {
        try {
          await fn();
        } catch (e) {
          if ((e as { kind?: string }).kind === 'no_endpoint') return;
          request.log.warn({ service, reason: (e as Error).message }, 'delete preview: a service did not answer');
          unreachable.push(service);
        }
      };
      const keepVolumes = !truthy(c.labels.cinder_csi_delete_volumes);
      const keepShares = !truthy(c.labels.manila_csi_delete_shares);
      await Promise.all([
        ask('block-storage', async () => {
          const cinder = cloud.cinder();
          for (const v of await cinder.listVolumes({ metadata: { 'cinder.csi.openstack.org/cluster': c.uuid } })) {
            resources.push({
              service: 'block-storage', type: 'volume', id: v.id, name: v.name ?? null, source: 'cloud',
              action: keepVolumes ? 'keep' : 'delete',
              note: keepVolumes ? 'Made by the cluster’s Cinder CSI: kept (label cinder_csi_delete_volumes is not true).' : 'Made by the cluster’s Cinder CSI: deleted (cinder_csi_delete_volumes=true).',
            });
          }
        }),
        ask('sharev2', async () => {
          const manila = cloud.manila();
          for (const sh of await manila.listShares({ metadata: { 'manila.csi.openstack.org/cluster': c.uuid } })) {
            resources.push({
              service: 'sharev2', type: 'share', id: sh.id, name: sh.name ?? null, source: 'cloud',
              action: keepShares ? 'keep' : 'delete',
              note: keepShares ? 'Made by the cluster’s Manila CSI: kept (label manila_csi_delete_shares is not true).' : 'Made by the cluster’s Manila CSI: deleted (manila_csi_delete_shares=true).',
            });
          }
        }),
        ask('load-balancer', async () => {
          const octavia = cloud.octavia();
          const occm = new RegExp(`^Kubernetes .+ from cluster ${c.uuid}$`);
          const known = new Set(resources.map((r) => r.id));
          for (const lb of await octavia.listLoadBalancers()) {
            if (known.has(lb.id) || !occm.test(lb.description ?? '')) continue;
            resources.push({ service: 'load-balancer', type: 'loadbalancer', id: lb.id, name: lb.name ?? null, source: 'cloud', action: 'delete', note: 'Made by the cluster’s cloud provider for a Service or Ingress.' });
          }
        }),
      ]);
      if (c.app_cred_id) {
        resources.push({ service: 'identity', type: 'application_credential', id: c.app_cred_id, name: c.uuid, source: 'cluster', action: 'delete', note: 'The cluster’s own credential; deleted last.' });
      }
      for (const r of c.retired_app_creds) {
        resources.push({ service: 'identity', type: 'application_credential', id: r.id, name: null, source: 'cluster', action: 'delete', note: 'Replaced by a credential rotation, not yet deleted; deleted with the cluster.' });
      }
      return { cluster_uuid: c.uuid, name: c.name, status: c.status, resources, unreachable };
    },
  );
};

type Static = {
  service: string;
  type: string;
  id: string;
  name: string | null;
  action: 'delete' | 'keep';
  source: 'ledger' | 'cloud' | 'cluster';
  note?: string;
};
