// One simulated Kubernetes cluster: born from a kubeadm init, joined by the servers whose
// discovery succeeded. It holds its objects, the members (servers that run a kubelet for it), the
// CAs its live control planes trust, and one HTTPS listener that serves while a live control plane
// does, with a certificate from the newest control plane's CA.
import type { SimClock } from '../common/clock.js';
import type { CloudView } from './cloud-view.js';
import { kubeadmObjects, nthAddress } from './kubeadm-objects.js';
import { ApiListener } from './listener.js';
import { NODES, reconcileNodes, registerNode, type NodeMember } from './nodes.js';
import { RestApi } from './rest.js';
import { ObjectStore, type Obj, type StoreSnapshot } from './store.js';
import { CloudControllers, controllerConf, csiController, occmDaemonSet } from './cloud-controllers.js';
import type { CloudConf } from './cloud-conf.js';
import { HostAgents } from './host-agents.js';
import { PodMounts } from './mounts.js';
import { reconcileDisruptionBudgets } from './disruption.js';
import { Kubelets } from './termination.js';
import { caCertHash, issueServingCert } from './tls.js';
import type { KeyPair, KubeRole } from './userdata.js';
import { Workloads } from './workloads.js';

export interface ClusterInfo {
  id: string;
  projectId: string;
  /** controlPlaneEndpoint host and port. */
  endpoint: { host: string; port: number };
  bindPort: number;
  certSans: string[];
  name: string;
  serviceSubnet: string;
  podSubnet: string;
  dnsDomain: string;
  /** InitConfiguration.bootstrapTokens, with their expiry (epoch ms). */
  tokens: { token: string; expiresAt: number }[];
  createdAt: number;
}

export interface Member extends NodeMember {
  role: KubeRole;
  ca: KeyPair | undefined;
  /** Join order: the newest control plane's CA signs the serving certificate, its version is the API's. */
  seq: number;
}

export interface ClusterSnapshot {
  info: ClusterInfo;
  members: Member[];
  store: StoreSnapshot;
  seq: number;
}

const CORE = (resource: string) => ({ group: '', resource });
const RESOURCES: Record<string, { group: string; resource: string }> = {
  Namespace: CORE('namespaces'), ConfigMap: CORE('configmaps'), Service: CORE('services'),
  Deployment: { group: 'apps', resource: 'deployments' }, DaemonSet: { group: 'apps', resource: 'daemonsets' },
};
/** Resources the simulated controllers read: a write to one of them makes them catch up. */
const CONTROLLED = new Set(['/nodes', '/pods', '/namespaces', 'apps/daemonsets', 'apps/deployments', 'apps/statefulsets', 'operator.tigera.io/installations', 'policy/poddisruptionbudgets']);
const exists = (store: ObjectStore, group: string, resource: string, namespace: string, name: string) => store.has({ group, resource, namespace, name });

export class SimCluster {
  readonly store: ObjectStore;
  readonly members = new Map<string, Member>();
  private readonly rest: RestApi;
  private readonly workloads: Workloads;
  private readonly kubelets: Kubelets;
  private readonly controllers: CloudControllers;
  /** What each pod read of its Secrets when it started. */
  private readonly mounts = new PodMounts();
  /** The service's agents that write files of the nodes (host-sync). */
  private readonly agents = new HostAgents();
  private listener: ApiListener | undefined;
  /** What the listener serves now: the signing CA, the names and the trust set. */
  private identity = '';
  /** Listener changes, one after the other. */
  private work: Promise<void> = Promise.resolve();
  private seq = 0;
  private closed = false;

  constructor(
    readonly info: ClusterInfo,
    private readonly view: CloudView,
    private readonly clock: SimClock,
    /** Where the cluster's API listener binds (the simulator's host). */
    private readonly listenHost = '127.0.0.1',
  ) {
    this.store = new ObjectStore(() => clock.now());
    this.workloads = new Workloads(this.store, clock.random, (pod) => this.agents.ready(pod));
    this.kubelets = new Kubelets(this.store, clock, () => this.reconcile());
    this.controllers = new CloudControllers({
      store: this.store,
      clock,
      occm: () => this.occmDaemonSet(),
      csi: () => csiController(this.store),
      conf: (which) => this.controllerConf(which === 'occm' ? this.occmDaemonSet() : csiController(this.store)),
    });
    this.rest = new RestApi({
      store: this.store,
      now: () => clock.now(),
      version: () => this.version(),
      changed: (w) => {
        if (CONTROLLED.has(`${w.group}/${w.resource}`)) this.reconcile();
        else this.controllers.kick();
      },
    });
  }

  /** The objects kubeadm init creates (the init member's facts). */
  bootstrap(init: { version: string; caCert: string }): void {
    const objects = kubeadmObjects({
      clusterName: this.info.name,
      version: init.version,
      endpoint: `${this.info.endpoint.host}:${this.info.endpoint.port}`,
      serviceSubnet: this.info.serviceSubnet,
      podSubnet: this.info.podSubnet,
      dnsDomain: this.info.dnsDomain,
      certSans: this.info.certSans,
      caCert: init.caCert,
    });
    for (const o of objects) {
      const r = RESOURCES[o.kind]!;
      this.store.write({ ...r, namespace: o.metadata.namespace ?? '', name: o.metadata.name }, o);
    }
  }

  /** The port clients reach this cluster's API on, while it serves. */
  get port(): number | undefined {
    return this.listener?.port;
  }

  /** Client connections open on its API now. */
  connections(): Promise<number> {
    return this.listener?.connections() ?? Promise.resolve(0);
  }

  /** Control planes whose server runs. */
  liveControlPlanes(): Member[] {
    return [...this.members.values()].filter((m) => m.controlPlane && this.view.alive(m.serverId)).sort((a, b) => a.seq - b.seq);
  }

  /** The CA certificates of the live control planes (both CAs during a rotation). */
  trustedCas(): string[] {
    const seen = new Map<string, string>();
    for (const m of this.liveControlPlanes()) if (m.ca) seen.set(caCertHash(m.ca.cert), m.ca.cert);
    return [...seen.values()];
  }

  caHashes(): Set<string> {
    return new Set(this.trustedCas().map(caCertHash));
  }

  /** A bootstrap token kubeadm accepts: one init listed (within its ttl), or a bootstrap-token Secret not expired. */
  tokenValid(token: string | undefined): boolean {
    const m = /^([a-z0-9]{6})\.([a-z0-9]{16})$/.exec(token ?? '');
    if (!m) return false;
    const now = this.clock.now();
    if (this.info.tokens.some((t) => t.token === token && t.expiresAt > now)) return true;
    const s = this.store.get({ group: '', resource: 'secrets', namespace: 'kube-system', name: `bootstrap-token-${m[1]}` });
    if (!s || s.type !== 'bootstrap.kubernetes.io/token') return false;
    const data = (s.data ?? {}) as Record<string, string>;
    const field = (k: string) => (data[k] === undefined ? undefined : Buffer.from(data[k], 'base64').toString('utf8'));
    if (field('token-secret') !== m[2]) return false;
    const expiration = field('expiration');
    return expiration === undefined || Date.parse(expiration) > now;
  }

  /** A server that finished kubeadm init or join: its Node registers; a control plane adds its CA to the trust. */
  join(m: Omit<Member, 'seq'>): void {
    for (const [id, other] of this.members) if (other.nodeName === m.nodeName) this.members.delete(id);
    this.members.set(m.serverId, { ...m, seq: ++this.seq });
    registerNode(this.store, { ...m });
    this.refresh();
  }

  /**
   * After a change of the servers: members whose server stopped leave (a shelved one stays, its Node NotReady,
   * until it wakes), the controllers and the listener catch up.
   */
  refresh(): void {
    for (const [id, m] of this.members) if (!this.view.alive(m.serverId) && !this.view.sleeping(m.serverId)) this.members.delete(id);
    this.reconcile();
    this.syncListener();
  }

  /**
   * No live control plane and none asleep: the cluster is gone for good (its etcd with it). With every control
   * plane shelved it lives on (etcd's data is on their disks) but its API does not answer until one wakes.
   */
  get dead(): boolean {
    return this.liveControlPlanes().length === 0 && ![...this.members.values()].some((m) => m.controlPlane && this.view.sleeping(m.serverId));
  }

  /** Members by node name, for the Node controller. */
  private byNodeName(): Map<string, NodeMember> {
    return new Map([...this.members.values()].sort((a, b) => a.seq - b.seq).map((m) => [m.nodeName, m]));
  }

  /** A CNI is applied: Calico through a running tigera-operator and its Installation (or the calico-node manifest), or Flannel. */
  cniApplied(): boolean {
    const s = this.store;
    const calicoOperator = exists(s, 'operator.tigera.io', 'installations', '', 'default') && this.operatorRunning();
    const ds = s.peekList('apps', 'daemonsets');
    return calicoOperator || ds.some((d) => d.metadata.name === 'calico-node') || ds.some((d) => d.metadata.name === 'kube-flannel-ds');
  }

  private operatorRunning(): boolean {
    const d = this.store.peek({ group: 'apps', resource: 'deployments', namespace: 'tigera-operator', name: 'tigera-operator' });
    return ((d?.status as { readyReplicas?: number } | undefined)?.readyReplicas ?? 0) > 0;
  }

  /** A running tigera-operator registers its CRDs (-manage-crds), Established. */
  private operatorCrds(): void {
    if (!this.operatorRunning()) return;
    for (const [plural, kind] of [['installations', 'Installation'], ['apiservers', 'APIServer'], ['tigerastatuses', 'TigeraStatus']] as const) {
      const name = `${plural}.operator.tigera.io`;
      this.store.save({ group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions', namespace: '', name }, {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name },
        spec: { group: 'operator.tigera.io', names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` }, scope: 'Cluster', versions: [{ name: 'v1', served: true, storage: true }] },
        status: { conditions: [{ type: 'NamesAccepted', status: 'True', reason: 'NoConflicts' }, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted' }], acceptedNames: { kind, plural } },
      });
    }
  }

  /** OCCM's DaemonSet while it runs (a pod on a live node). */
  private occmDaemonSet(): Obj | undefined {
    return occmDaemonSet(this.store, new Set([...this.members.values()].filter((m) => this.view.alive(m.serverId)).map((m) => m.nodeName)));
  }

  /** The controllers, until nothing moves (a few passes: pods depend on nodes and OCCM on pods). */
  reconcile(): void {
    if (this.closed) return;
    for (let pass = 0; pass < 4; pass++) {
      const before = this.store.resourceVersion;
      const cni = this.cniApplied();
      const members = this.byNodeName();
      const nodes = reconcileNodes(this.store, { view: this.view, projectId: this.info.projectId, members, cni, occm: this.occmDaemonSet() !== undefined, now: this.clock.now() });
      this.workloads.reconcile(nodes, cni);
      this.operatorCrds();
      reconcileDisruptionBudgets(this.store, this.clock.now());
      const alive = new Set(nodes.filter((n) => n.alive).map((n) => n.name));
      this.kubelets.sync((name) => alive.has(name));
      this.mounts.sync(this.store);
      const files = (node: string) => {
        const m = alive.has(node) ? members.get(node) : undefined;
        if (m) m.files ??= {};
        return m?.files;
      };
      const wrote = this.agents.run(this.store, this.mounts, files);
      if (this.store.resourceVersion === before && !wrote) break;
    }
    this.controllers.kick();
  }

  /** The cloud.conf the first running pod of a cloud provider's workload read at start. */
  private controllerConf(workload: Obj | undefined): CloudConf | undefined {
    const alive = new Set([...this.members.values()].filter((m) => this.view.alive(m.serverId)).map((m) => m.nodeName));
    return controllerConf(this.store, this.mounts, workload, alive);
  }

  /** A node's files under /etc/kubernetes (tests and introspection). */
  nodeFiles(nodeName: string): Record<string, string> | undefined {
    const m = [...this.members.values()].find((x) => x.nodeName === nodeName);
    return m?.files && { ...m.files };
  }

  version(): Record<string, string> {
    const cps = this.liveControlPlanes();
    const newest = cps[cps.length - 1] ?? [...this.members.values()].sort((a, b) => b.seq - a.seq)[0];
    const v = newest?.version ?? 'v0.0.0';
    const m = /^v?(\d+)\.(\d+)/.exec(v);
    return {
      major: m?.[1] ?? '0',
      minor: m?.[2] ?? '0',
      gitVersion: v.startsWith('v') ? v : `v${v}`,
      gitCommit: '0000000000000000000000000000000000000000',
      gitTreeState: 'clean',
      buildDate: '2026-01-01T00:00:00Z',
      goVersion: 'go1.25.0',
      compiler: 'gc',
      platform: 'linux/amd64',
    };
  }

  /** The names the serving certificate holds: certSANs, the endpoint, loopback, the control planes and the service names. */
  private names(cps: Member[]): string[] {
    const ips = cps.flatMap((m) => this.view.fixedAddresses(m.serverId).map((f) => f.ip));
    const domain = this.info.dnsDomain;
    const service = nthAddress(this.info.serviceSubnet, 1);
    return [...new Set([
      ...this.info.certSans, this.info.endpoint.host, '127.0.0.1', ...ips, ...(service ? [service] : []),
      ...cps.map((m) => m.nodeName), 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', `kubernetes.default.svc.${domain}`,
    ].filter(Boolean))].sort();
  }

  /** Opens, re-keys or closes the listener to match the live control planes. */
  private syncListener(): void {
    const cps = this.liveControlPlanes();
    const signer = [...cps].reverse().find((m) => m.ca)?.ca;
    if (this.closed) return;
    if (!signer) {
      if (this.identity === '') return;
      this.identity = '';
      this.queue(async () => {
        await this.listener?.close();
        this.listener = undefined;
      });
      return;
    }
    const names = this.names(cps);
    const trusted = this.trustedCas();
    const identity = JSON.stringify([caCertHash(signer.cert), names, trusted.map(caCertHash)]);
    if (identity === this.identity) return;
    this.identity = identity;
    this.queue(async () => {
      if (this.identity !== identity || this.closed) return;
      const serving = await issueServingCert(signer, names);
      if (this.identity !== identity || this.closed) return;
      if (this.listener) this.listener.update({ serving, trusted });
      else {
        const l = new ApiListener((req) => this.rest.handle(req));
        await l.start({ serving, trusted }, this.listenHost);
        if (this.closed) await l.close();
        else this.listener = l;
      }
    });
  }

  private queue(task: () => Promise<void>): void {
    this.work = this.work.then(task).catch(() => undefined);
  }

  /** Resolves once pending listener changes are done. */
  settled(): Promise<void> {
    return this.work;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.kubelets.close();
    this.controllers.close();
    this.identity = '';
    await this.work;
    await this.listener?.close();
    this.listener = undefined;
  }

  snapshot(): ClusterSnapshot {
    return structuredClone({ info: this.info, members: [...this.members.values()], store: this.store.snapshot(), seq: this.seq });
  }

  static restore(s: ClusterSnapshot, view: CloudView, clock: SimClock, listenHost?: string): SimCluster {
    const c = new SimCluster(structuredClone(s.info), view, clock, listenHost);
    c.store.restore(s.store);
    for (const m of structuredClone(s.members)) c.members.set(m.serverId, m);
    c.seq = s.seq;
    return c;
  }

  /** The Node objects (for tests and introspection). */
  nodes(): Obj[] {
    return this.store.list(NODES.group, NODES.resource);
  }
}
