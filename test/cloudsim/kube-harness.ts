// The simulated cloud driven over HTTP the way the worker drives it for a cluster: a network with
// a router, pre-made ports, an Octavia load balancer (listener 6443, pool, members), a floating
// IP, servers booted with the user-data the bootstrap renderer writes; and KubeClients routed by
// the simulator's admin API, with client certificates issued from a cluster CA.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { startCloudSims, type CloudSims } from '../../cloudsim/cloud.js';
import { BUILTIN_USERS, SERVICE_USER } from '../../cloudsim/embedded.js';
import type { KeystoneSim } from '../../cloudsim/keystone/index.js';
import { cloudsimConnect, KubeClient } from '../../src/kube/api-client.js';
import { renderUserData } from '../support/user-data.js';
import type { NodeImage } from '../../src/cluster-spec/image.js';
import type { NodeTaint } from '../../src/cluster-spec/node-labels.js';
import type { ControlPlanePki, KeyPair } from '../../src/bootstrap/join.js';
import { parseClusterSpec } from '../../src/cluster-spec/parse.js';
import type { ClusterSpec } from '../../src/cluster-spec/types.js';
import { issueClientCert } from '../../src/pki/client-cert.js';
import { passwordToken, startKeystone } from '../support/app.js';
import { call } from '../support/http.js';
import { input, pki, TOKEN } from '../support/spec-fixtures.js';
import { assertFreshIndexes } from './fresh-indexes.js';

export type Who = 'demo' | 'other' | 'admin';

export interface Lb {
  id: string;
  vip: string;
  vipPortId: string;
}

export interface KubeHarness {
  keystone: KeystoneSim;
  sims: CloudSims;
  tokens: Record<Who, string>;
  spec: ClusterSpec;
  subnetId: string;
  /** A call to a service URL as `who`, answering `status`; returns the body. */
  ok(status: number, method: string, url: string, body?: unknown, who?: Who): Promise<any>;
  /** A port on the cluster subnet; returns its id and address. */
  port(name: string): Promise<{ id: string; ip: string }>;
  /** Boots a server on a port with this user-data (its text), from `image` (a seeded image's name; ubuntu-24.04 by default); returns the server id once ACTIVE. */
  boot(name: string, portId: string, userData: string, image?: string): Promise<string>;
  /** Deletes a server and waits until Nova forgot it. */
  remove(serverId: string): Promise<void>;
  userData(role: 'init' | 'control-plane' | 'worker', nodeName: string, endpoint: { address: string; extraSans?: string[] }, over?: { pki?: ControlPlanePki; token?: string; caCert?: string; trusted?: string[]; image?: NodeImage; nodeLabels?: Record<string, string>; nodeTaints?: NodeTaint[]; spec?: ClusterSpec }): string;
  /** A load balancer on the subnet (not waited for). */
  lb(): Promise<Lb>;
  /** Waits until the load balancer is ACTIVE. */
  lbActive(lb: Lb): Promise<void>;
  /** Listener TCP 6443 with a default pool; returns the pool id. */
  listenerAndPool(lb: Lb): Promise<string>;
  member(lb: Lb, poolId: string, address: string): Promise<string>;
  /** A floating IP on the public network, associated with `portId`; returns its address. */
  fip(portId: string): Promise<string>;
  /** A client of `server` (https://address:6443) as `identity`, routed by the admin API as `who`. */
  client(address: string, identity: KeyPair, caCerts?: string[], who?: Who): KubeClient;
  identity(ca: KeyPair, cn?: string, groups?: string[]): Promise<KeyPair>;
  /** With a state file: the cloud closed (saved) and started again from the file. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export interface KubeHarnessOptions {
  /** The cluster's template, labels and counts (fixtures' input()); calico, 3 + 2 nodes by default. */
  cluster?: Parameters<typeof input>[0];
  /** Keep the cloud in this state file. */
  stateFile?: string;
}

/** Polls `probe` until it yields something truthy (5 s at most). */
export async function until<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

export async function startKubeHarness(opts: KubeHarnessOptions = {}): Promise<KubeHarness> {
  const keystone = await startKeystone();
  // as test/support's startSims (cloud transitions in milliseconds), optionally persisted
  const startCloud = () =>
    startCloudSims({
      keystone,
      authUrl: `http://127.0.0.1:${(keystone.app.server.address() as AddressInfo).port}/v3`,
      credentials: { username: SERVICE_USER.username, password: SERVICE_USER.password, projectName: SERVICE_USER.project },
      host: '127.0.0.1',
      clock: { timeScale: 0.001 },
      ...(opts.stateFile ? { persist: { file: opts.stateFile, intervalMs: 0 } } : {}),
    });
  let sims = await startCloud();
  const tokens = {} as Record<Who, string>;
  for (const u of ['demo', 'other', 'admin'] as const) tokens[u] = await passwordToken(keystone, u, BUILTIN_USERS[u].password, BUILTIN_USERS[u].project);
  const { spec } = parseClusterSpec(input(opts.cluster ?? { cluster: { master_count: 3, node_count: 2 } }));
  const ok = async (status: number, method: string, url: string, body?: unknown, who: Who = 'demo') => {
    const r = await call(method, url, tokens[who], body);
    assert.equal(r.status, status, `${method} ${url}: ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const net = () => sims.urls.network;
  const lbUrl = () => `${sims.urls['load-balancer']}/v2/lbaas`;
  const publicNet = [...sims.neutron.state.networks.values()].find((n) => n.name === 'public')!.id;
  const network = (await ok(201, 'POST', `${net()}/v2.0/networks`, { network: { name: 'k1-net' } })).network;
  const subnet = (await ok(201, 'POST', `${net()}/v2.0/subnets`, { subnet: { network_id: network.id, cidr: '10.0.0.0/24', ip_version: 4, name: 'k1-subnet' } })).subnet;
  const router = (await ok(201, 'POST', `${net()}/v2.0/routers`, { router: { name: 'k1-router', external_gateway_info: { network_id: publicNet } } })).router;
  await ok(200, 'PUT', `${net()}/v2.0/routers/${router.id}/add_router_interface`, { subnet_id: subnet.id });
  const image = [...sims.glance.state.images.values()].find((i) => i.name === 'ubuntu-24.04' || i.name === 'cirros')!.id;

  const lbReady = async (lbId: string) => {
    await until('the load balancer ACTIVE', async () => (await call('GET', `${lbUrl()}/loadbalancers/${lbId}`, tokens.demo)).body.loadbalancer.provisioning_status === 'ACTIVE');
  };
  const h: KubeHarness = {
    keystone,
    get sims() {
      return sims;
    },
    tokens,
    spec,
    subnetId: subnet.id,
    ok,
    async port(name) {
      const p = (await ok(201, 'POST', `${net()}/v2.0/ports`, { port: { name, network_id: network.id, fixed_ips: [{ subnet_id: subnet.id }] } })).port;
      return { id: p.id as string, ip: p.fixed_ips[0].ip_address as string };
    },
    async boot(name, portId, userData, imageName) {
      const imageRef = imageName ? sims.glance.state.byName(imageName)!.id : image;
      const body = { server: { name, flavorRef: '2', imageRef, networks: [{ port: portId }], user_data: Buffer.from(userData).toString('base64') } };
      const id = (await ok(202, 'POST', `${sims.urls.compute}/servers`, body)).server.id as string;
      await until(`${name} ACTIVE`, async () => (await call('GET', `${sims.urls.compute}/servers/${id}`, tokens.demo)).body.server?.status === 'ACTIVE');
      return id;
    },
    async remove(serverId) {
      await ok(204, 'DELETE', `${sims.urls.compute}/servers/${serverId}`);
      await until('the server gone', async () => (await call('GET', `${sims.urls.compute}/servers/${serverId}`, tokens.demo)).status === 404);
    },
    userData(role, nodeName, endpoint, over = {}) {
      const common = {
        nodeName, endpoint, bootstrapToken: over.token ?? TOKEN, ...(over.trusted ? { trustedCaCerts: over.trusted } : {}),
        ...(over.image ? { image: over.image } : {}), ...(over.nodeLabels ? { nodeLabels: over.nodeLabels } : {}), ...(over.nodeTaints ? { nodeTaints: over.nodeTaints } : {}),
      };
      return role === 'worker'
        ? renderUserData(over.spec ?? spec, { ...common, role, caCert: over.caCert ?? (over.pki ?? pki).ca.cert })
        : renderUserData(over.spec ?? spec, { ...common, role, pki: over.pki ?? pki });
    },
    async lb() {
      const b = (await ok(201, 'POST', `${lbUrl()}/loadbalancers`, { loadbalancer: { name: 'k1-api', vip_subnet_id: subnet.id } })).loadbalancer;
      return { id: b.id, vip: b.vip_address, vipPortId: b.vip_port_id };
    },
    lbActive: (lb) => lbReady(lb.id),
    async listenerAndPool(lb) {
      await lbReady(lb.id);
      const l = (await ok(201, 'POST', `${lbUrl()}/listeners`, { listener: { loadbalancer_id: lb.id, protocol: 'TCP', protocol_port: 6443 } })).listener;
      await lbReady(lb.id);
      const p = (await ok(201, 'POST', `${lbUrl()}/pools`, { pool: { listener_id: l.id, protocol: 'TCP', lb_algorithm: 'ROUND_ROBIN' } })).pool;
      await lbReady(lb.id);
      return p.id as string;
    },
    async member(lb, poolId, address) {
      await lbReady(lb.id);
      const m = (await ok(201, 'POST', `${lbUrl()}/pools/${poolId}/members`, { member: { address, protocol_port: 6443, subnet_id: subnet.id } })).member;
      await lbReady(lb.id);
      return m.id as string;
    },
    async fip(portId) {
      const f = (await ok(201, 'POST', `${net()}/v2.0/floatingips`, { floatingip: { floating_network_id: publicNet, port_id: portId } })).floatingip;
      return f.floating_ip_address as string;
    },
    client(address, id, caCerts = [pki.ca.cert], who = 'demo') {
      const getJson = async (path: string) => {
        const r = await call('GET', `${sims.urls['cloudsim-admin']}${path}`, tokens[who]);
        if (r.status !== 200) throw Object.assign(new Error(`admin ${path}: ${r.status}`), { status: r.status });
        return r.body;
      };
      return new KubeClient({ server: `https://${address}:6443`, caCerts, clientCert: id.cert, clientKey: id.key, connect: cloudsimConnect(getJson), limits: { idleTimeoutMs: 5000 } });
    },
    async identity(ca, cn = 'admin', groups = ['system:masters']) {
      return issueClientCert(ca, { commonName: cn, organizations: groups });
    },
    async restart() {
      await sims.close();
      sims = await startCloud();
    },
    async close() {
      assertFreshIndexes(sims);
      await sims.close();
      await keystone.app.close();
    },
  };
  return h;
}
