// The simulated cloud behind the Keystone emulator: Glance, Nova and Neutron listening on one
// host, each validating tokens against that Keystone and registered in its catalog.
import type { FastifyInstance } from 'fastify';
import type { ServiceCredentials } from './common/keystone-auth.js';
import { createGlanceSim, type GlanceSim } from './glance/index.js';
import type { KeystoneSim } from './keystone/index.js';
import { createNeutronSim, type NeutronSim } from './neutron/index.js';
import { createNovaSim, type NovaSim } from './nova/index.js';

export interface CloudSimOptions {
  keystone: KeystoneSim;
  /** The Keystone v3 URL the services validate tokens at (…/v3). */
  authUrl: string;
  /** The services' own Keystone user (needs the service or admin role to validate tokens). */
  credentials: ServiceCredentials;
  host: string;
  /** The host advertised in the catalog (default: host). */
  publicHost?: string;
  /** 0 (any free port) when absent. */
  ports?: { glance?: number; nova?: number; neutron?: number };
}

export interface CloudSims {
  glance: GlanceSim;
  nova: NovaSim;
  neutron: NeutronSim;
  /** The catalog URLs, by service type. */
  urls: { image: string; compute: string; network: string };
  close(): Promise<void>;
}

export async function startCloudSims(opts: CloudSimOptions): Promise<CloudSims> {
  const keystone = { authUrl: opts.authUrl, credentials: opts.credentials };
  const projects = Object.fromEntries(
    [...opts.keystone.state.projects.values()].filter((p) => p.domainId === 'default').map((p) => [p.name, p.id]),
  );
  const glance = createGlanceSim({ keystone, projects });
  const nova = createNovaSim({ keystone });
  const neutron = createNeutronSim({ keystone, projects });
  const started: FastifyInstance[] = [];
  const close = async () => {
    await Promise.all(started.map((app) => app.close()));
  };
  const listen = async (app: FastifyInstance, port: number | undefined) => {
    const address = await app.listen({ host: opts.host, port: port ?? 0 });
    started.push(app);
    return opts.publicHost ? `http://${opts.publicHost}:${new URL(address).port}` : address;
  };
  try {
    const urls = {
      image: await listen(glance.app, opts.ports?.glance),
      compute: `${await listen(nova.app, opts.ports?.nova)}/v2.1`,
      network: await listen(neutron.app, opts.ports?.neutron),
    };
    const catalog = opts.keystone.state.catalog;
    catalog.upsert({ type: 'image', name: 'glance', url: urls.image });
    catalog.upsert({ type: 'compute', name: 'nova', url: urls.compute });
    catalog.upsert({ type: 'network', name: 'neutron', url: urls.network });
    return { glance, nova, neutron, urls, close };
  } catch (e) {
    await close();
    throw e;
  }
}
