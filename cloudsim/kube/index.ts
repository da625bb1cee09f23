// The simulated Kubernetes side of the cloud: Nova tells it when a server becomes ACTIVE or goes
// away; the server's first boot (guest.ts: its image's agent reads the user-data, installs or
// requires Kubernetes) then plays kubeadm when its user-data holds a kubeadm configuration. An init
// builds a cluster after 'kube.init'; a join retries discovery every 'kube.join.retry' (endpoint
// reachable through the cloud, API serving, token valid, CA hash pinned) until its bootstrap
// script's retry budget is spent, and registers its Node after 'kube.join' (a node that installs
// Kubernetes first waits 'kube.install'). Clients reach a cluster's API through
// `resolve(address, port)`, which follows the cloud's wiring (see cloud-view.ts).
import type { Snapshotable } from '../common/audit.js';
import type { SimClock, SimTimer } from '../common/clock.js';
import type { Server } from '../nova/servers.js';
import { CloudView, type CloudStates } from './cloud-view.js';
import { SimCluster, type ClusterSnapshot, type Member } from './cluster.js';
import { agentOf, firstBoot } from './guest.js';
import { readGuest } from './guest-formats.js';
import { fetchMaterial, materialSource } from './node-material.js';
import { parseUserData, type KubeadmNode } from './userdata.js';

export { SimCluster } from './cluster.js';
export type { CloudStates } from './cloud-view.js';

export interface KubeSimOptions {
  states: CloudStates;
  /** The 'kube.*' delays come from it (a fork of the cloud's clock). */
  clock: SimClock;
  /** Where clusters' API listeners bind, and the host clients reach them by (resolve()); 127.0.0.1 for both when absent. */
  listen?: { host: string; advertised: string };
}

export type AgentState = 'initializing' | 'discovering' | 'waiting' | 'joining' | 'joined' | 'failed' | 'stopped';

/** How a server's kubeadm is doing (tests and introspection). */
export interface JoinStatus {
  role: KubeadmNode['role'];
  nodeName: string;
  state: AgentState;
  attempts: number;
  lastError: string | undefined;
  clusterId: string | undefined;
}

interface Agent extends JoinStatus {
  serverId: string;
  projectId: string;
  node: KubeadmNode;
  deadline: number;
  timer: SimTimer | undefined;
}

export interface KubeSnapshot {
  clusters: ClusterSnapshot[];
}

/** Where a client's connection to address:port goes: the cluster's listener. */
export interface KubeTarget {
  host: string;
  port: number;
}

/** What a node's kubelet reports as its OS, from its image's properties. */
const osImage = (p: Record<string, string>): string =>
  p.os_distro === 'fedora-coreos' ? `Fedora CoreOS ${p.os_version ?? ''}`.trim() : `Ubuntu ${p.os_version ?? '24.04'} LTS`;

const INSTANCE_ID = /__INSTANCE_ID__|\{\{\s*(v1\.instance_id|ds\.meta_data\.uuid)\s*\}\}/g;

export class KubeSim implements Snapshotable {
  readonly clock: SimClock;
  readonly clusters = new Map<string, SimCluster>();
  private readonly view: CloudView;
  private readonly agents = new Map<string, Agent>();
  /** Servers whose user-data is not a kubeadm node's. */
  private readonly ignored = new Set<string>();
  /** Servers fetching their secrets from the service before their first boot goes on. */
  private readonly fetching = new Set<string>();
  private closed = false;

  private readonly listen: { host: string; advertised: string };

  constructor(opts: KubeSimOptions) {
    this.clock = opts.clock;
    this.view = new CloudView(opts.states);
    this.listen = opts.listen ?? { host: '127.0.0.1', advertised: '127.0.0.1' };
  }

  /** Nova's hook: a server became ACTIVE, started deleting, was deleted, failed, was shelved or unshelved. */
  serverChanged(s: Server): void {
    if (this.closed) return;
    if (this.view.alive(s.id)) {
      // Unshelved: a node that had joined boots its kubelet (and its control plane) again; a new server boots.
      if (this.agents.get(s.id)?.state === 'joined') this.refresh((c) => c.members.has(s.id));
      else this.boot(s);
      return;
    }
    const a = this.agents.get(s.id);
    if (a && a.state !== 'joined' && a.state !== 'failed') this.stop(a, 'stopped');
    if (s.vmState === 'deleted') {
      this.agents.delete(s.id);
      this.ignored.delete(s.id);
    }
    // Only the clusters the server is a member of depend on it (hundreds of clusters: not all).
    this.refresh((c) => c.members.has(s.id));
  }

  /** Where address:port reaches a serving cluster's API (only `projectId`'s clusters when given). */
  resolve(address: string, port: number, projectId?: string): KubeTarget | undefined {
    const c = this.reachable(address, port, projectId);
    return c?.port === undefined ? undefined : { host: this.listen.advertised, port: c.port };
  }

  /** Client connections open on the API address:port reaches (0 when it reaches none). */
  connections(address: string, port: number): Promise<number> {
    return this.reachable(address, port, undefined)?.connections() ?? Promise.resolve(0);
  }

  /** Every server's kubeadm (the admin API's GET /v1/kube/agents), a project's only when given. */
  agentsOf(projectId?: string): (JoinStatus & { server_id: string; project_id: string })[] {
    return [...this.agents.values()]
      .filter((a) => projectId === undefined || a.projectId === projectId)
      .map((a) => ({ server_id: a.serverId, project_id: a.projectId, ...this.joinStatus(a.serverId)! }));
  }

  joinStatus(serverId: string): JoinStatus | undefined {
    const a = this.agents.get(serverId);
    return a && { role: a.role, nodeName: a.nodeName, state: a.state, attempts: a.attempts, lastError: a.lastError, clusterId: a.clusterId };
  }

  /** The cluster a server initialised or joined. */
  clusterOf(serverId: string): SimCluster | undefined {
    const id = this.agents.get(serverId)?.clusterId;
    return id === undefined ? undefined : this.clusters.get(id);
  }

  /** Resolves once every cluster's listener changes are done. */
  async settled(): Promise<void> {
    await Promise.all([...this.clusters.values()].map((c) => c.settled()));
  }

  private reachable(address: string, port: number, projectId: string | undefined, from?: ReadonlySet<string>): SimCluster | undefined {
    // Hundreds of clusters: only those with a control plane behind the address are looked at, found
    // from the address's servers (a member's agent names its cluster), not by trying every cluster.
    const behind = this.view.behind(address, from);
    const candidates = new Set<SimCluster>();
    for (const serverId of this.view.serversBehind(behind)) {
      const c = this.clusterOf(serverId);
      if (c) candidates.add(c);
    }
    for (const c of candidates) {
      if (c.port === undefined || (projectId !== undefined && c.info.projectId !== projectId)) continue;
      const cps = c.liveControlPlanes();
      if (!cps.some((m) => this.view.fixedAddresses(m.serverId).some((f) => this.view.isBehind(behind, f)))) continue;
      const backends = cps.map((m) => ({ serverId: m.serverId, bindPort: c.info.bindPort }));
      if (this.view.reaches(address, port, backends, from)) return c;
    }
    return undefined;
  }

  private boot(s: Server): void {
    if (this.agents.has(s.id) || this.ignored.has(s.id) || this.fetching.has(s.id)) return;
    const props = this.view.imageProperties(s);
    const source = materialSource(readGuest(s.userData, agentOf(props)).files);
    if (!source) return this.bootWith(s, new Map());
    // Its secrets are not in its user-data: the node asks the service for them first (node-material.ts).
    this.fetching.add(s.id);
    const pause = () => new Promise<void>((r) => setTimeout(r, Math.max(250, 2000 * this.clock.timeScale)));
    void fetchMaterial(source, s.id, pause).then((got) => {
      this.fetching.delete(s.id);
      if (this.closed || !this.view.alive(s.id)) return;
      if ('files' in got) return this.bootWith(s, got.files);
      this.view.console(s.id, [`magnum-bootstrap: FAILED: ${got.error}`]);
      this.ignored.add(s.id);
    });
  }

  private bootWith(s: Server, material: ReadonlyMap<string, string>): void {
    const outcome = firstBoot(s, this.view.imageProperties(s), (lines) => this.view.console(s.id, lines), material);
    if (outcome.kind === 'none') {
      this.ignored.add(s.id);
      return;
    }
    // A join's kubelet runs the binaries' version; an init's control plane, ClusterConfiguration's.
    const node = outcome.kind === 'node' && outcome.node.role !== 'init' ? { ...outcome.node, version: outcome.version ?? outcome.node.version } : outcome.node;
    const a: Agent = {
      serverId: s.id, projectId: s.projectId, node, role: node.role, nodeName: node.nodeName,
      state: node.role === 'init' ? 'initializing' : 'discovering', attempts: 0, lastError: undefined, clusterId: undefined, deadline: 0, timer: undefined,
    };
    this.agents.set(s.id, a);
    if (outcome.kind === 'failed') return this.stop(a, 'failed', outcome.error);
    // Installing Kubernetes comes before kubeadm runs.
    const start = () => {
      if (node.role === 'init') {
        a.timer = this.clock.after('kube.init', () => this.initDone(a));
        return;
      }
      // kubeadm's discovery gives up after its timeout; the bootstrap script's loop runs it again
      const discovery = this.clock.delayMs('kube.join.discovery');
      const loop = node.joinLoop;
      a.deadline = this.clock.now() + (loop ? loop.attempts * (discovery + loop.sleepMs * this.clock.timeScale) : discovery);
      this.attempt(a);
    };
    if (outcome.installs) a.timer = this.clock.after('kube.install', () => (this.view.alive(s.id) ? start() : this.stop(a, 'stopped')));
    else start();
  }

  private stop(a: Agent, state: AgentState, error?: string): void {
    a.timer?.cancel();
    a.timer = undefined;
    a.state = state;
    if (error) a.lastError = error;
  }

  private member(a: Agent, version: string): Omit<Member, 'seq'> {
    const server = this.view.server(a.serverId);
    return {
      serverId: a.serverId,
      nodeName: a.node.nodeName,
      role: a.node.role,
      controlPlane: a.node.role !== 'worker',
      version,
      providerId: a.node.providerId?.replace(INSTANCE_ID, a.serverId),
      ca: a.node.role === 'worker' ? undefined : a.node.ca,
      labels: a.node.labels,
      taints: a.node.taints,
      osImage: osImage(server ? this.view.imageProperties(server) : {}),
      files: { ...a.node.hostFiles },
    };
  }

  private initDone(a: Agent): void {
    a.timer = undefined;
    const server = this.view.server(a.serverId);
    if (!server || !this.view.alive(a.serverId)) return this.stop(a, 'stopped');
    if (!a.node.ca || !a.node.cluster) return this.stop(a, 'failed', 'no cluster CA key pair in /etc/kubernetes/pki');
    const now = this.clock.now();
    const endpoint = a.node.endpoint.host ? a.node.endpoint : { host: this.view.fixedAddresses(a.serverId)[0]?.ip ?? '127.0.0.1', port: a.node.bindPort };
    const c = new SimCluster(
      {
        id: this.clock.random.uuid(),
        projectId: server.projectId,
        endpoint,
        bindPort: a.node.bindPort,
        certSans: a.node.certSans,
        name: a.node.cluster.name,
        serviceSubnet: a.node.cluster.serviceSubnet,
        podSubnet: a.node.cluster.podSubnet,
        dnsDomain: a.node.cluster.dnsDomain,
        // token expirations are wall-clock instants, like the ones the worker writes into bootstrap-token Secrets
        tokens: a.node.bootstrapTokens.map((t) => ({ token: t.token, expiresAt: now + t.ttlMs })),
        createdAt: now,
      },
      this.view,
      this.clock,
      this.listen.host,
    );
    const version = a.node.version ?? 'v0.0.0';
    c.bootstrap({ version, caCert: a.node.ca.cert });
    this.clusters.set(c.info.id, c);
    a.state = 'joined';
    a.clusterId = c.info.id;
    c.join(this.member(a, version));
    this.view.console(a.serverId, ['magnum-bootstrap: kubeadm init done']);
  }

  /** One discovery attempt: reach the endpoint through the cloud, check the token and the CA pin. */
  private attempt(a: Agent): void {
    a.timer = undefined;
    if (!this.view.alive(a.serverId)) return this.stop(a, 'stopped');
    const { host, port } = a.node.endpoint;
    // From the joining server: its private addresses resolve on its own networks only.
    const c = this.reachable(host, port, a.projectId, this.view.networksOf(a.serverId));
    const id = a.node.token?.split('.')[0] ?? '';
    const error = !c
      ? `couldn't validate the identity of the API Server: Get "https://${host}:${port}/api/v1/namespaces/kube-public/configmaps/cluster-info?timeout=10s": dial tcp ${host}:${port}: connect: no route to host`
      : !c.tokenValid(a.node.token)
        ? `couldn't validate the identity of the API Server: token id "${id}" is invalid for this cluster or it has expired`
        : !a.node.caCertHashes.some((h) => c.caHashes().has(h.toLowerCase()))
          ? `couldn't validate the identity of the API Server: cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "${[...c.caHashes()].join(', ')}" are pinned`
          : undefined;
    a.attempts++;
    // A gated control plane waits for its turn (the service names it in a ConfigMap) before kubeadm join runs.
    const turn = a.node.joinTurn;
    if (!error && c && turn && a.role === 'control-plane') {
      const cm = c.store.get({ group: '', resource: 'configmaps', namespace: turn.namespace, name: turn.name });
      if ((cm as { data?: Record<string, string> } | undefined)?.data?.node !== a.nodeName) {
        a.state = 'waiting';
        a.lastError = `waiting for its turn in ConfigMap ${turn.namespace}/${turn.name}`;
        a.deadline = Math.max(a.deadline, this.clock.now() + this.clock.delayMs('kube.join.discovery'));
        a.timer = this.clock.after(turn.pollMs, () => this.attempt(a));
        return;
      }
    }
    if (error || !c) {
      a.lastError = error;
      if (this.clock.now() >= a.deadline) {
        this.view.console(a.serverId, [`error execution phase preflight: ${error}`, `magnum-bootstrap: FAILED: kubeadm join did not succeed in ${a.node.joinLoop?.attempts ?? 1} attempts`]);
        return this.stop(a, 'failed');
      }
      a.state = 'discovering';
      a.timer = this.clock.after('kube.join.retry', () => this.attempt(a));
      return;
    }
    a.state = 'joining';
    a.lastError = undefined;
    a.timer = this.clock.after('kube.join', () => this.joinDone(a, c.info.id));
  }

  private joinDone(a: Agent, clusterId: string): void {
    a.timer = undefined;
    if (!this.view.alive(a.serverId)) return this.stop(a, 'stopped');
    const c = this.clusters.get(clusterId);
    if (!c || c.dead) return this.attempt(a);
    const clusterVersion = c.version().gitVersion ?? 'v0.0.0';
    const version = a.node.version ?? (a.node.minor && !clusterVersion.startsWith(`v${a.node.minor}.`) ? `v${a.node.minor}.0` : clusterVersion);
    a.state = 'joined';
    a.clusterId = clusterId;
    c.join(this.member(a, version));
    this.view.console(a.serverId, ['magnum-bootstrap: kubeadm join done']);
  }

  /** Every cluster catches up with its servers; a cluster without a live control plane goes. */
  private refresh(which: (c: SimCluster) => boolean = () => true): void {
    for (const [id, c] of this.clusters) {
      if (!which(c)) continue;
      c.refresh();
      if (c.dead) {
        this.clusters.delete(id);
        void c.close();
      }
    }
  }

  /** After a restore: servers carry on (members stay members, the others boot again), listeners reopen. */
  resume(): void {
    for (const s of this.view.liveServers()) {
      const asleep = this.view.sleeping(s.id);
      if (!this.view.alive(s.id) && !asleep) continue;
      const cluster = [...this.clusters.values()].find((c) => c.members.has(s.id));
      const node = cluster ? parseUserData(s.userData, s.name, agentOf(this.view.imageProperties(s))) : undefined;
      if (cluster && node) {
        this.agents.set(s.id, { serverId: s.id, projectId: s.projectId, node, role: node.role, nodeName: node.nodeName, state: 'joined', attempts: 0, lastError: undefined, clusterId: cluster.info.id, deadline: 0, timer: undefined });
      } else if (!asleep) this.boot(s);
    }
    this.refresh();
  }

  snapshot(): KubeSnapshot {
    return { clusters: [...this.clusters.values()].map((c) => c.snapshot()) };
  }

  restore(snapshot: unknown): void {
    const s = snapshot as KubeSnapshot;
    for (const a of this.agents.values()) a.timer?.cancel();
    this.agents.clear();
    this.ignored.clear();
    this.fetching.clear();
    for (const c of this.clusters.values()) void c.close();
    this.clusters.clear();
    for (const cs of s.clusters ?? []) {
      const c = SimCluster.restore(cs, this.view, this.clock, this.listen.host);
      this.clusters.set(c.info.id, c);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const a of this.agents.values()) a.timer?.cancel();
    await Promise.all([...this.clusters.values()].map((c) => c.close()));
  }
}
