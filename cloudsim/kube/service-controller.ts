// OCCM's service controller, reduced to what a cluster's owner and its delete see in the cloud
// (cloud-provider-openstack pkg/openstack/loadbalancer.go): a Service of type LoadBalancer gets the
// finalizer service.kubernetes.io/load-balancer-cleanup and an Octavia load balancer named
// kube_service_<cluster>_<namespace>_<name> (at most 255 characters), described "Kubernetes external
// service <ns>/<name> from cluster <cluster>" and tagged with its name, made in one graph (a
// listener, pool and health monitor per port, the Ready nodes not excluded from load balancers as
// members on the node port), then a floating IP on its VIP port from the conf's floating network
// described "Floating IP for Kubernetes external service <ns>/<name> from cluster <cluster>"
// (none for an internal one); the address goes to status.loadBalancer.ingress and the id to the
// loadbalancer.openstack.org/load-balancer-id annotation. Node changes update the members. As the
// real controller, it ensures a Service again only when the Service changes: a load balancer
// deleted behind its back (a cluster delete) is not made again. A Service that stops being a
// LoadBalancer, or is deleted, loses its floating IP (unless keep-floatingip) and load balancer
// (cascade), then its finalizer. Not simulated: ports changed after the load balancer was made
// (the real controller updates its listeners), shared load balancers, and the many annotations.
import type { LoadBalancer, OctaviaClient } from '../../src/openstack/octavia.js';
import { isNotFound } from '../../src/openstack/errors.js';
import { argOf, type CloudClients, type CloudConf } from './cloud-conf.js';
import { finishDeletion } from './termination.js';
import { terminating } from './disruption.js';
import type { Obj, ObjKey, ObjectStore } from './store.js';

export const LB_FINALIZER = 'service.kubernetes.io/load-balancer-cleanup';
export const LB_ID = 'loadbalancer.openstack.org/load-balancer-id';
const INTERNAL = 'service.beta.kubernetes.io/openstack-internal-load-balancer';
const KEEP_FIP = 'loadbalancer.openstack.org/keep-floatingip';
const EXCLUDED = 'node.kubernetes.io/exclude-from-external-load-balancers';

interface Port {
  name?: string;
  port: number;
  protocol?: string;
  nodePort?: number;
}

/** The outcome of one pass: something is still on its way (look again soon), something failed (back off). */
export interface Pass {
  pending: boolean;
  failed: boolean;
}

/** cpoutil.Sprintf255: the name cut to Octavia's 255 characters. */
export const lbName = (cluster: string, namespace: string, name: string): string => `kube_service_${cluster}_${namespace}_${name}`.slice(0, 255);

const keyOf = (svc: Obj): ObjKey => ({ group: '', resource: 'services', namespace: svc.metadata.namespace ?? 'default', name: svc.metadata.name });
const portsOf = (svc: Obj): Port[] => ((svc.spec as { ports?: Port[] } | undefined)?.ports ?? []);
const wantsLb = (svc: Obj): boolean => (svc.spec as { type?: string } | undefined)?.type === 'LoadBalancer' && !terminating(svc);

export class ServiceController {
  /** Service uid → the generation last ensured (an unchanged Service is not ensured again). */
  private readonly ensured = new Map<string, number>();
  /** Service uid → the member addresses last written. */
  private readonly members = new Map<string, string>();

  constructor(
    private readonly store: ObjectStore,
    private readonly event: (o: Obj, type: 'Normal' | 'Warning', reason: string, message: string) => void,
  ) {}

  /** Services it has work for (no login otherwise). */
  hasWork(): boolean {
    return this.store.list('', 'services').some((s) => wantsLb(s) || ((s.metadata.finalizers as string[] | undefined) ?? []).includes(LB_FINALIZER));
  }

  async reconcile(conf: CloudConf, clients: CloudClients, occm: Obj | undefined): Promise<Pass> {
    const cluster = argOf(occm, 'cluster-name') ?? 'kubernetes';
    let pending = false;
    let failed = false;
    for (const svc of this.store.list('', 'services')) {
      const finalizers = (svc.metadata.finalizers as string[] | undefined) ?? [];
      try {
        if (wantsLb(svc)) pending = (await this.ensure(conf, clients, cluster, svc)) || pending;
        else if (finalizers.includes(LB_FINALIZER)) pending = (await this.remove(clients, cluster, svc)) || pending;
      } catch (e) {
        this.event(svc, 'Warning', wantsLb(svc) ? 'SyncLoadBalancerFailed' : 'DeleteLoadBalancerFailed', `Error syncing load balancer: ${(e as Error).message}`);
        failed = true;
      }
    }
    return { pending, failed };
  }

  /** True while the load balancer builds. */
  private async ensure(conf: CloudConf, clients: CloudClients, cluster: string, svc: Obj): Promise<boolean> {
    const uid = svc.metadata.uid!;
    const lbConf = conf.loadbalancer ?? {};
    const octavia = await clients.octavia();
    const generation = svc.metadata.generation ?? 0;
    const annotated = svc.metadata.annotations?.[LB_ID];
    if (this.ensured.get(uid) === generation || (!this.ensured.has(uid) && annotated && this.ingressOf(svc))) {
      this.ensured.set(uid, generation);
      await this.syncMembers(octavia, svc, lbConf);
      return false;
    }
    const svcWithFinalizer = this.addFinalizer(svc);
    const name = lbName(cluster, svc.metadata.namespace ?? 'default', svc.metadata.name);
    let lb = annotated ? await octavia.getLoadBalancer(annotated).catch((e) => (isNotFound(e) ? undefined : Promise.reject(e))) : undefined;
    lb ??= (await octavia.listLoadBalancers({ name } as never)).find((x) => x.name === name);
    if (!lb) {
      lb = await octavia.createLoadBalancer(this.graph(svc, name, cluster, lbConf) as never);
      // Made with these members: node changes from here on update them.
      this.members.set(uid, JSON.stringify(this.memberList(svc, lbConf)));
      this.event(svc, 'Normal', 'EnsuringLoadBalancer', 'Ensuring load balancer');
    }
    this.annotate(svcWithFinalizer, lb.id);
    if (lb.provisioning_status === 'ERROR') throw new Error(`load balancer ${lb.id} is in ERROR`);
    if (lb.provisioning_status !== 'ACTIVE') return true;
    let address = lb.vip_address!;
    const internal = svc.metadata.annotations?.[INTERNAL] === 'true';
    if (!internal && lbConf['floating-network-id']) {
      const neutron = await clients.neutron();
      const fip = (await neutron.floatingIps.list({ port_id: lb.vip_port_id } as never))[0]
        ?? (await neutron.floatingIps.create({
          floating_network_id: lbConf['floating-network-id'],
          port_id: lb.vip_port_id,
          description: `Floating IP for Kubernetes external service ${svc.metadata.namespace ?? 'default'}/${svc.metadata.name} from cluster ${cluster}`,
        } as never));
      address = fip.floating_ip_address!;
    }
    this.writeIngress(svc, address);
    this.ensured.set(uid, generation);
    this.event(svc, 'Normal', 'EnsuredLoadBalancer', 'Ensured load balancer');
    return false;
  }

  /** The fully populated load balancer OCCM asks for. */
  private graph(svc: Obj, name: string, cluster: string, lbConf: Record<string, string>): Record<string, unknown> {
    const monitor = lbConf['create-monitor'] === 'true';
    const seconds = (v: string | undefined, d: number) => Number.parseInt((v ?? '').replace(/s$/, ''), 10) || d;
    const members = this.memberList(svc, lbConf);
    return {
      name,
      description: `Kubernetes external service ${svc.metadata.namespace ?? 'default'}/${svc.metadata.name} from cluster ${cluster}`,
      vip_subnet_id: lbConf['subnet-id'],
      ...(lbConf['lb-provider'] ? { provider: lbConf['lb-provider'] } : {}),
      tags: [name],
      listeners: portsOf(svc).map((p, i) => {
        const protocol = (p.protocol ?? 'TCP').toUpperCase();
        return {
          name: `listener_${i}_${name}`.slice(0, 255),
          protocol,
          protocol_port: p.port,
          default_pool: {
            name: `pool_${i}_${name}`.slice(0, 255),
            protocol,
            lb_algorithm: lbConf['lb-method'] ?? 'ROUND_ROBIN',
            members: members.map((m) => ({ ...m, protocol_port: p.nodePort })),
            ...(monitor
              ? { healthmonitor: { name: `monitor_${i}_${name}`.slice(0, 255), type: protocol === 'UDP' ? 'UDP-CONNECT' : 'TCP', delay: seconds(lbConf['monitor-delay'], 5), timeout: seconds(lbConf['monitor-timeout'], 3), max_retries: Number(lbConf['monitor-max-retries'] ?? 1) } }
              : {}),
          },
        };
      }),
    };
  }

  /** Ready nodes not excluded from external load balancers, by their InternalIP. */
  private memberList(_svc: Obj, lbConf: Record<string, string>): { name: string; address: string; subnet_id?: string }[] {
    const out: { name: string; address: string; subnet_id?: string }[] = [];
    for (const n of this.store.list('', 'nodes')) {
      if (n.metadata.labels && EXCLUDED in n.metadata.labels) continue;
      const status = n.status as { conditions?: { type: string; status: string }[]; addresses?: { type: string; address: string }[] } | undefined;
      if (!status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) continue;
      const ip = status.addresses?.find((a) => a.type === 'InternalIP')?.address;
      if (ip) out.push({ name: n.metadata.name, address: ip, ...(lbConf['subnet-id'] ? { subnet_id: lbConf['subnet-id'] } : {}) });
    }
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }

  /** UpdateLoadBalancer after node changes: each pool's members made the nodes' (the load balancer ACTIVE). */
  private async syncMembers(octavia: OctaviaClient, svc: Obj, lbConf: Record<string, string>): Promise<void> {
    const members = this.memberList(svc, lbConf);
    const want = JSON.stringify(members);
    if (this.members.get(svc.metadata.uid!) === want) return;
    const id = svc.metadata.annotations?.[LB_ID];
    if (!id) return;
    const lb: LoadBalancer = await octavia.getLoadBalancer(id);
    if (lb.provisioning_status !== 'ACTIVE') throw new Error(`load balancer ${id} is ${lb.provisioning_status}`);
    const ports = portsOf(svc);
    for (const [i, p] of ports.entries()) {
      const pool = (await octavia.pools.list({ loadbalancer_id: id } as never)).find((x) => x.name === `pool_${i}_${lb.name}`.slice(0, 255));
      if (pool) await octavia.replaceMembers(pool.id, members.map((m) => ({ ...m, protocol_port: p.nodePort })) as never);
    }
    this.members.set(svc.metadata.uid!, want);
  }

  /** EnsureLoadBalancerDeleted: its floating IP (unless kept), the load balancer (cascade), then the finalizer. True while it goes. */
  private async remove(clients: CloudClients, cluster: string, svc: Obj): Promise<boolean> {
    const octavia = await clients.octavia();
    const name = lbName(cluster, svc.metadata.namespace ?? 'default', svc.metadata.name);
    const id = svc.metadata.annotations?.[LB_ID];
    let lb = id ? await octavia.getLoadBalancer(id).catch((e) => (isNotFound(e) ? undefined : Promise.reject(e))) : undefined;
    lb ??= (await octavia.listLoadBalancers({ name } as never)).find((x) => x.name === name);
    if (lb && lb.provisioning_status !== 'DELETED') {
      if (svc.metadata.annotations?.[KEEP_FIP] !== 'true' && lb.vip_port_id) {
        const neutron = await clients.neutron();
        for (const f of await neutron.floatingIps.list({ port_id: lb.vip_port_id } as never)) {
          if (/^Floating IP for Kubernetes external service/.test(f.description ?? '')) await neutron.floatingIps.delete(f.id);
        }
      }
      if (lb.provisioning_status === 'ACTIVE' || lb.provisioning_status === 'ERROR') await octavia.deleteLoadBalancer(lb.id, { cascade: true });
      return true;
    }
    this.ensured.delete(svc.metadata.uid!);
    this.members.delete(svc.metadata.uid!);
    const now = this.store.get(keyOf(svc));
    if (!now) return false;
    const finalizers = ((now.metadata.finalizers as string[] | undefined) ?? []).filter((f) => f !== LB_FINALIZER);
    const annotations = { ...now.metadata.annotations };
    delete annotations[LB_ID];
    const spec = now.spec as Record<string, unknown>;
    this.store.write(keyOf(now), { ...now, metadata: { ...now.metadata, finalizers, annotations }, status: { ...(now.status as object), loadBalancer: {} }, spec });
    finishDeletion(this.store, keyOf(now));
    this.event(svc, 'Normal', 'DeletedLoadBalancer', 'Deleted load balancer');
    return false;
  }

  private ingressOf(svc: Obj): string | undefined {
    return ((svc.status as { loadBalancer?: { ingress?: { ip?: string }[] } } | undefined)?.loadBalancer?.ingress ?? [])[0]?.ip;
  }

  private addFinalizer(svc: Obj): Obj {
    const finalizers = (svc.metadata.finalizers as string[] | undefined) ?? [];
    if (finalizers.includes(LB_FINALIZER)) return svc;
    return this.store.write(keyOf(svc), { ...svc, metadata: { ...svc.metadata, finalizers: [...finalizers, LB_FINALIZER] } });
  }

  private annotate(svc: Obj, id: string): void {
    const now = this.store.get(keyOf(svc)) ?? svc;
    if (now.metadata.annotations?.[LB_ID] === id) return;
    this.store.write(keyOf(now), { ...now, metadata: { ...now.metadata, annotations: { ...now.metadata.annotations, [LB_ID]: id } } });
  }

  private writeIngress(svc: Obj, ip: string): void {
    const now = this.store.get(keyOf(svc));
    if (!now || this.ingressOf(now) === ip) return;
    this.store.write(keyOf(now), { ...now, status: { ...(now.status as object), loadBalancer: { ingress: [{ ip, ipMode: 'VIP' }] } } });
  }
}
