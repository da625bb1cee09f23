// GET /v1/cloud-choices (an extension): what the caller's project may pick from in a template or a
// cluster, asked of Nova, Glance and Neutron with the caller's token: flavors (vCPUs, RAM, disk),
// keypairs (names only), images with their os_distro and kube_version, external networks. For the portal's forms;
// a service that does not answer is named in `unreachable` and its list is empty.
import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { enforce } from '../../../domain/policy.js';
import { errorResponses } from '../../schemas/common.js';
import { caller } from '../../request-caller.js';

const NS = Type.Union([Type.String(), Type.Null()]);
export const CloudChoices = Type.Object(
  {
    flavors: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), vcpus: Type.Integer(), ram: Type.Integer({ description: 'MiB' }), disk: Type.Integer({ description: 'GiB' }) })),
    keypairs: Type.Array(Type.Object({ name: Type.String(), type: NS })),
    images: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), os_distro: NS, kube_version: Type.Union([Type.String(), Type.Null()], { description: 'The Kubernetes release the image carries (its property kube_version), if it says one.' }) })),
    external_networks: Type.Array(Type.Object({ id: Type.String(), name: Type.String() })),
    unreachable: Type.Array(Type.String()),
  },
  { $id: 'CloudChoices' },
);

export const cloudChoiceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const s = app.services;
  app.get(
    '/cloud-choices',
    {
      schema: {
        tags: ['clustertemplates'],
        summary: 'Flavors, keypairs, images and external networks the caller may use (an extension, for forms)',
        response: { 200: Type.Ref(CloudChoices), ...errorResponses(401, 403) },
      },
    },
    async (request) => {
      enforce(request.auth, 'clustertemplate:get_all');
      const cloud = s.clouds.for(caller(request));
      const unreachable: string[] = [];
      const ask = async <T>(service: string, fn: () => Promise<T[]>): Promise<T[]> =>
        fn().catch((e: Error) => {
          request.log.warn({ service, reason: e.message }, 'cloud choices: a service did not answer');
          unreachable.push(service);
          return [];
        });
      const [flavors, keypairs, images, networks] = await Promise.all([
        ask('compute', async () => (await cloud.nova().listFlavors()).map((f) => ({ id: f.id, name: f.name, vcpus: f.vcpus, ram: f.ram, disk: f.disk }))),
        ask('compute', async () => (await cloud.novaResources().listKeypairs()).map((k) => ({ name: k.name, type: (k as { type?: string }).type ?? null }))),
        ask('image', async () =>
          (await cloud.glance().listImages()).filter((i) => i.status === 'active').map((i) => ({ id: i.id, name: i.name ?? i.id, os_distro: typeof i.os_distro === 'string' ? i.os_distro : null, kube_version: typeof i.kube_version === 'string' ? i.kube_version : null })),
        ),
        ask('network', async () => (await cloud.neutron().listNetworks({ 'router:external': true })).map((n) => ({ id: n.id, name: n.name ?? n.id }))),
      ]);
      return { flavors: flavors.sort((a, b) => a.vcpus - b.vcpus || a.ram - b.ram), keypairs, images, external_networks: networks, unreachable: [...new Set(unreachable)] };
    },
  );
};
