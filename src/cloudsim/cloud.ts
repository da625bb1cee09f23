// The simulated cloud behind the Keystone emulator: Glance, Nova, Neutron, Octavia and Cinder
// listening on one host, each validating tokens against that Keystone and registered in its catalog.
import type { FastifyInstance } from 'fastify';
import { createCinderSim, type CinderSim } from './cinder/index.js';
import { SimClock, type SimClockOptions } from './common/clock.js';
import type { ServiceCredentials } from './common/keystone-auth.js';
import { createGlanceSim, type GlanceSim } from './glance/index.js';
import type { KeystoneSim } from './keystone/index.js';
import { createNeutronSim, type NeutronSim } from './neutron/index.js';
import { createNovaSim, type NovaSim } from './nova/index.js';
import { NeutronVipAllocator } from './neutron/vip.js';
import { createOctaviaSim, type OctaviaSim } from './octavia/index.js';

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
  ports?: { glance?: number; nova?: number; neutron?: number; octavia?: number; cinder?: number };
  /** Timing of the asynchronous transitions (timeScale, seed, delays); realistic and randomly seeded when absent. */
  clock?: SimClockOptions;
}

export interface CloudSims {
  glance: GlanceSim;
  nova: NovaSim;
  neutron: NeutronSim;
  octavia: OctaviaSim;
  cinder: CinderSim;
  /** The clock every service's delays are drawn from (its seed replays a run); closed by close(). */
  clock: SimClock;
  /** The catalog URLs, by service type (block-storage still holds its %(project_id)s placeholder). */
  urls: { image: string; compute: string; network: string; 'load-balancer': string; 'block-storage': string };
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
  const clock = new SimClock(opts.clock);
  const octavia = createOctaviaSim({ keystone, clock: clock.fork('octavia'), vip: new NeutronVipAllocator(neutron.state) });
  const cinder = createCinderSim({ keystone, clock: clock.fork('cinder') });
  const started: FastifyInstance[] = [];
  const close = async () => {
    await Promise.all(started.map((app) => app.close()));
    // Apps never started still own timers only once used; close their state too.
    octavia.state.close();
    cinder.state.close();
    clock.close();
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
      'load-balancer': await listen(octavia.app, opts.ports?.octavia),
      'block-storage': `${await listen(cinder.app, opts.ports?.cinder)}/v3/%(project_id)s`,
    };
    const catalog = opts.keystone.state.catalog;
    catalog.upsert({ type: 'image', name: 'glance', url: urls.image });
    catalog.upsert({ type: 'compute', name: 'nova', url: urls.compute });
    catalog.upsert({ type: 'network', name: 'neutron', url: urls.network });
    catalog.upsert({ type: 'load-balancer', name: 'octavia', url: urls['load-balancer'] });
    catalog.upsert({ type: 'block-storage', name: 'cinderv3', url: urls['block-storage'] });
    return { glance, nova, neutron, octavia, cinder, clock, urls, close };
  } catch (e) {
    await close();
    throw e;
  }
}
