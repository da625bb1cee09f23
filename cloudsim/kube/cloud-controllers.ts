// The cloud provider's controllers of one simulated cluster, run as the pods would run them: OCCM's
// service controller while the openstack-cloud-controller-manager DaemonSet has a pod on a live
// node, Cinder CSI's provisioner while its controller Deployment has a ready replica, both acting
// with the credential of cloud.conf over the cloud's HTTP APIs. A pass runs after each change of
// the cluster (one at a time: a change during a pass runs another), again a few (simulated)
// seconds later while something is on its way, and with a growing delay after failures, which
// become Events of the object as the real controllers record them. Each acts with the cloud.conf its
// pod read when it started: a changed Secret counts only once the pod has been replaced.
import type { SimClock, SimTimer } from '../common/clock.js';
import { cloudClients, parseCloudConf, type CloudConf } from './cloud-conf.js';
import { terminating } from './disruption.js';
import type { Container, PodMounts } from './mounts.js';
import { CsiController } from './csi-controller.js';
import { ServiceController } from './service-controller.js';
import { iso, type Obj, type ObjectStore } from './store.js';

const POLL_MS = 5_000;
const MAX_BACKOFF_MS = 300_000;

export interface ControllerHost {
  store: ObjectStore;
  clock: SimClock;
  /** OCCM's DaemonSet, when one of its pods runs. */
  occm(): Obj | undefined;
  /** Cinder CSI's controller Deployment, when a replica is ready. */
  csi(): Obj | undefined;
  /** The cloud.conf the running controller read when its pod started (its --cloud-config file). */
  conf(controller: 'occm' | 'csi'): CloudConf | undefined;
}

/** OCCM's DaemonSet while one of its pods runs on a node of `alive`. */
export function occmDaemonSet(store: ObjectStore, alive: ReadonlySet<string>): Obj | undefined {
  const ds = store.peek({ group: 'apps', resource: 'daemonsets', namespace: 'kube-system', name: 'openstack-cloud-controller-manager' });
  if (!ds) return undefined;
  const runs = store.peekList('', 'pods', 'kube-system').some((p) => p.metadata.ownerReferences?.some((o) => o.uid === ds.metadata.uid) && alive.has((p.spec as { nodeName?: string }).nodeName ?? ''));
  return runs ? ds : undefined;
}

/** Cinder CSI's controller Deployment while a replica is ready. */
export function csiController(store: ObjectStore): Obj | undefined {
  const d = store.get({ group: 'apps', resource: 'deployments', namespace: 'kube-system', name: 'csi-cinder-controllerplugin' });
  return ((d?.status as { readyReplicas?: number } | undefined)?.readyReplicas ?? 0) > 0 ? d : undefined;
}

/** The cloud.conf the first running pod of a cloud provider's `workload` (on a node of `alive`) read when it started: its --cloud-config file. */
export function controllerConf(store: ObjectStore, mounts: PodMounts, workload: Obj | undefined, alive: ReadonlySet<string>): CloudConf | undefined {
  const selector = ((workload?.spec as { selector?: { matchLabels?: Record<string, string> } } | undefined)?.selector?.matchLabels) ?? {};
  if (!workload || Object.keys(selector).length === 0) return undefined;
  const pods = store
    .list('', 'pods', workload.metadata.namespace ?? 'default')
    .filter((p) => !terminating(p) && Object.entries(selector).every(([k, v]) => p.metadata.labels?.[k] === v) && alive.has((p.spec as { nodeName?: string }).nodeName ?? ''));
  for (const p of pods) {
    for (const c of (p.spec as { containers?: Container[] }).containers ?? []) {
      const path = [...(c.command ?? []), ...(c.args ?? [])].find((a) => a.startsWith('--cloud-config='))?.slice('--cloud-config='.length);
      const text = path ? mounts.file(p, c, path) : undefined;
      if (text !== undefined) return parseCloudConf(text);
    }
  }
  return undefined;
}

export class CloudControllers {
  private readonly services: ServiceController;
  private readonly volumes: CsiController;
  private running = false;
  private again = false;
  private timer: SimTimer | undefined;
  private failures = 0;
  private closed = false;

  constructor(private readonly host: ControllerHost) {
    const event = (o: Obj, type: 'Normal' | 'Warning', reason: string, message: string) => recordEvent(host.store, host.clock.now(), o, type, reason, message);
    this.services = new ServiceController(host.store, event);
    this.volumes = new CsiController(host.store, event);
  }

  /** Something changed: a pass now (or right after the running one). */
  kick(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.timer?.cancel();
    this.timer = undefined;
    void this.loop();
  }

  private async loop(): Promise<void> {
    this.running = true;
    let pending = false;
    let failed = false;
    try {
      do {
        this.again = false;
        const pass = await this.pass();
        pending = pass.pending;
        failed = pass.failed;
      } while (this.again && !this.closed);
    } catch {
      // A controller's own bug must not take the simulator down: it backs off like a failed call.
      failed = true;
    } finally {
      this.running = false;
    }
    if (this.closed) return;
    this.failures = failed ? this.failures + 1 : 0;
    if (!pending && !failed) return;
    const delay = failed ? Math.min(MAX_BACKOFF_MS, POLL_MS * 2 ** Math.min(this.failures, 6)) : POLL_MS;
    this.timer = this.host.clock.after(delay, () => {
      this.timer = undefined;
      this.kick();
    });
  }

  private async pass(): Promise<{ pending: boolean; failed: boolean }> {
    const occm = this.host.occm();
    const csi = this.host.csi();
    const serviceWork = occm !== undefined && this.services.hasWork();
    const volumeWork = csi !== undefined && this.volumes.hasWork();
    if (!serviceWork && !volumeWork) return { pending: false, failed: false };
    let pending = false;
    let failed = false;
    // Each acts with the credential its own pod read at start, not what the Secret holds now.
    const login = (which: 'occm' | 'csi') => {
      const conf = this.host.conf(which);
      const clients = conf ? cloudClients(conf) : undefined;
      if (!conf || !clients) failed = true;
      return conf && clients ? { conf, clients } : undefined;
    };
    try {
      const o = serviceWork ? login('occm') : undefined;
      if (o) {
        const p = await this.services.reconcile(o.conf, o.clients, occm);
        pending ||= p.pending;
        failed ||= p.failed;
      }
      const c = volumeWork ? login('csi') : undefined;
      if (c) {
        const p = await this.volumes.reconcile(c.clients, csi);
        pending ||= p.pending;
        failed ||= p.failed;
      }
    } catch {
      failed = true;
    }
    return { pending, failed };
  }

  close(): void {
    this.closed = true;
    this.timer?.cancel();
    this.timer = undefined;
  }
}

/** A core/v1 Event about `o` (one per object and reason, its count going up), as client-go's recorder writes. */
export function recordEvent(store: ObjectStore, now: number, o: Obj, type: 'Normal' | 'Warning', reason: string, message: string): void {
  const namespace = o.metadata.namespace ?? 'default';
  const name = `${o.metadata.name}.${reason.toLowerCase()}`;
  const key = { group: '', resource: 'events', namespace, name };
  const old = store.get(key) as (Obj & { count?: number; firstTimestamp?: string }) | undefined;
  store.write(key, {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace },
    involvedObject: { apiVersion: o.apiVersion, kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name, uid: o.metadata.uid },
    reason,
    message,
    type,
    count: (old?.count ?? 0) + 1,
    firstTimestamp: old?.firstTimestamp ?? iso(now),
    lastTimestamp: iso(now),
    source: { component: reason.includes('LoadBalancer') ? 'service-controller' : 'cinder.csi.openstack.org' },
  });
}
