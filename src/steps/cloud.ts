// The OpenStack clients a run uses: the cluster's own application credential for everything it
// builds, and the service user (admin) only to delete that credential at the very end.
import type { Config } from '../config.js';
import type { ClusterRow } from '../db/entities/cluster.js';
import type { KubeLimits } from '../kube/api-client.js';
import { ServiceToken } from '../keystone/service-token.js';
import { AppCredentialAuth } from '../openstack/auth.js';
import type { CloudCaller } from '../openstack/caller.js';
import { KeystoneClient } from '../openstack/keystone.js';
import { BarbicanClient } from '../openstack/barbican.js';
import { CinderClient } from '../openstack/cinder.js';
import { DesignateClient } from '../openstack/designate.js';
import { ManilaClient } from '../openstack/manila.js';
import { GlanceClient } from '../openstack/glance.js';
import { OpenStackError } from '../openstack/http.js';
import { NeutronClient } from '../openstack/neutron.js';
import { NovaClient } from '../openstack/nova.js';
import { NovaResourcesClient } from '../openstack/nova-resources.js';
import { NovaServersClient } from '../openstack/nova-servers.js';
import { OctaviaClient } from '../openstack/octavia.js';
import { SimulatorAdminClient } from '../openstack/simulator-admin.js';
import { DEFAULT_RETRY_POLICY } from '../openstack/retry.js';
import { SecretBox } from '../security/secret-box.js';

/** What a worker needs of the configuration (the cluster API's bounds: their defaults when absent). */
export type WorkerCloudConfig = Pick<Config, 'keystone' | 'openstack' | 'secretKeys' | 'nodeMaterial'> & Partial<Pick<Config, 'kube'>>;

export interface Cloud {
  neutron(): Promise<NeutronClient>;
  octavia(): Promise<OctaviaClient>;
  servers(): Promise<NovaServersClient>;
  novaResources(): Promise<NovaResourcesClient>;
  /** Flavors. */
  nova(): Promise<NovaClient>;
  glance(): Promise<GlanceClient>;
  cinder(): Promise<CinderClient>;
  designate(): Promise<DesignateClient>;
  manila(): Promise<ManilaClient>;
  barbican(): Promise<BarbicanClient>;
  /**
   * GET on the simulator's admin API (catalog type cloudsim-admin) as the cluster; undefined when
   * the catalog has no such service (a real cloud), so the caller connects directly.
   */
  simulatorAdmin(): Promise<((path: string) => Promise<unknown>) | undefined>;
}

export class CloudFactory {
  private readonly box: SecretBox;
  private readonly service: ServiceToken;
  /** One login per credential, reused by the runs of its cluster in this process. */
  private readonly auths = new Map<string, AppCredentialAuth>();

  constructor(private readonly config: WorkerCloudConfig) {
    this.box = new SecretBox(config.secretKeys);
    this.service = new ServiceToken(config.keystone.authUrl, config.keystone.service, config.keystone.timeoutMs);
  }

  /** The cluster's login (its application credential), shared by its runs in this process; undefined when it has none. */
  private authFor(c: ClusterRow): AppCredentialAuth | undefined {
    if (!c.app_cred_id || !c.app_cred_secret) return undefined;
    const key = `${c.uuid}:${c.app_cred_id}`;
    let auth = this.auths.get(key);
    if (!auth) {
      auth = new AppCredentialAuth({
        authUrl: this.config.keystone.authUrl,
        id: c.app_cred_id,
        secret: this.box.open(c.app_cred_secret, `app-cred:${c.uuid}`),
        timeoutMs: this.config.openstack.timeoutMs,
        interface: this.config.openstack.interface,
        ...(this.config.openstack.region ? { region: this.config.openstack.region } : {}),
        retry: DEFAULT_RETRY_POLICY,
      });
      this.auths.set(key, auth);
    }
    return auth;
  }

  /**
   * The cluster's project as its application credential acts in it (a token, its roles and catalog), for what the
   * service begins through the API's checks (a maintenance window's upgrade); undefined when it has none.
   */
  async callerFor(c: ClusterRow): Promise<CloudCaller | undefined> {
    const auth = this.authFor(c);
    if (!auth) return undefined;
    return { ctx: await auth.context(), token: await auth.token() };
  }

  /** Clients acting as the cluster (its application credential); undefined when it has none any more. */
  forCluster(c: ClusterRow): Cloud | undefined {
    const a = this.authFor(c);
    if (!a) return undefined;
    return {
      neutron: async () => new NeutronClient(await a.session('network')),
      octavia: async () => new OctaviaClient(await a.session('load-balancer')),
      servers: async () => new NovaServersClient(await a.session('compute')),
      novaResources: async () => new NovaResourcesClient(await a.session('compute')),
      nova: async () => new NovaClient(await a.session('compute')),
      glance: async () => new GlanceClient(await a.session('image')),
      cinder: async () => new CinderClient(await a.session('block-storage')),
      designate: async () => new DesignateClient(await a.session('dns')),
      manila: async () => new ManilaClient(await a.session('sharev2')),
      barbican: async () => new BarbicanClient(await a.session('key-manager')),
      simulatorAdmin: async () => {
        const session = await a.session('cloudsim-admin').catch((e: unknown) => {
          if (e instanceof OpenStackError && e.kind === 'no_endpoint') return undefined;
          throw e;
        });
        if (!session) return undefined;
        const admin = new SimulatorAdminClient(session);
        return (path: string) => admin.get(path);
      },
    };
  }

  /** The cluster's application-credential secret, opened (cloud.conf and bootstrap tokens derive from it). */
  credentialSecret(c: ClusterRow): string | undefined {
    return c.app_cred_secret ? this.box.open(c.app_cred_secret, `app-cred:${c.uuid}`) : undefined;
  }

  /** The SecretBox sealing the cluster's keys. */
  get secretBox(): SecretBox {
    return this.box;
  }

  /** Bounds of the worker's calls to a cluster's Kubernetes API (KUBE_API_*). */
  get kubeLimits(): Partial<KubeLimits> {
    return this.config.kube ?? {};
  }

  /** Keystone and region as the cluster's in-cluster cloud provider sees them (cloud.conf). */
  /** Where the nodes fetch their secrets at first boot, and how long their one-time tokens live. */
  get nodeMaterial(): Config['nodeMaterial'] {
    return this.config.nodeMaterial;
  }

  get identity(): { authUrl: string; region: string } {
    return { authUrl: this.config.keystone.authUrl, region: this.config.openstack.region ?? 'RegionOne' };
  }

  /** Forget the cluster's login (its credential is being deleted). */
  forget(uuid: string): void {
    for (const k of this.auths.keys()) if (k.startsWith(`${uuid}:`)) this.auths.delete(k);
  }

  /** Deletes the cluster's application credential as the service user (admin); false when already gone. */
  async deleteAppCredential(userId: string, id: string): Promise<boolean> {
    const svc = this.service;
    const keystone = new KeystoneClient(
      {
        service: 'identity',
        baseUrl: this.config.keystone.authUrl,
        token: { token: () => svc.get(), invalidate: (t) => svc.invalidate(t) },
        timeoutMs: this.config.keystone.timeoutMs,
        retry: DEFAULT_RETRY_POLICY,
      },
      userId,
    );
    return keystone.deleteApplicationCredential(id);
  }
}
