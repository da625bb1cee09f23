// What a cluster will take from the project's quotas (its "bill"), and what is missing for it.
// Pure: the numbers come from the cluster's shape and its flavors; the quotas from the services.

export interface FlavorSize {
  vcpus: number;
  ram: number; // MiB
}

export interface BillInput {
  masterCount: number;
  nodeCount: number;
  masterFlavor: FlavorSize;
  workerFlavor: FlavorSize;
  /** GB of the per-node container volume (docker_volume_size); null: none. */
  volumeSize: number | null;
  /** GB of a boot volume per node (boot_volume_size label); null: boot from the image. */
  bootVolumeSize: number | null;
  floatingIpPerNode: boolean;
  apiLoadBalancer: boolean;
  /** A floating IP on the API load balancer. */
  apiFloatingIp: boolean;
  /** A network, subnet and router made for the cluster (not when it uses fixed_network). */
  ownNetwork: boolean;
  /** Security groups the cluster makes and their rules in total. */
  securityGroups: number;
  securityGroupRules: number;
}

/** One line per quota a cluster consumes. Keys are the names each service's quota uses. */
export interface Bill {
  instances: number;
  cores: number;
  ram: number;
  server_groups: number;
  server_group_members: number;
  volumes: number;
  gigabytes: number;
  network: number;
  subnet: number;
  router: number;
  port: number;
  floatingip: number;
  security_group: number;
  security_group_rule: number;
  load_balancer: number;
}

export function clusterBill(i: BillInput): Bill {
  const nodes = i.masterCount + i.nodeCount;
  const volumesPerNode = (i.volumeSize ? 1 : 0) + (i.bootVolumeSize ? 1 : 0);
  return {
    instances: nodes,
    cores: i.masterCount * i.masterFlavor.vcpus + i.nodeCount * i.workerFlavor.vcpus,
    ram: i.masterCount * i.masterFlavor.ram + i.nodeCount * i.workerFlavor.ram,
    // One anti-affinity group for the control plane, one for the workers.
    server_groups: 2,
    server_group_members: Math.max(i.masterCount, i.nodeCount),
    volumes: nodes * volumesPerNode,
    gigabytes: nodes * ((i.volumeSize ?? 0) + (i.bootVolumeSize ?? 0)),
    network: i.ownNetwork ? 1 : 0,
    subnet: i.ownNetwork ? 1 : 0,
    router: i.ownNetwork ? 1 : 0,
    // A port per node, the load balancer's VIP, and the router's interface.
    port: nodes + (i.apiLoadBalancer ? 1 : 0) + (i.ownNetwork ? 1 : 0),
    floatingip: (i.floatingIpPerNode ? nodes : 0) + (i.apiLoadBalancer && i.apiFloatingIp ? 1 : 0),
    security_group: i.securityGroups,
    security_group_rule: i.securityGroupRules,
    load_balancer: i.apiLoadBalancer ? 1 : 0,
  };
}

/** What a quota leaves: `limit` −1 means unlimited. */
export interface Headroom {
  limit: number;
  used: number;
}

export interface Shortfall {
  resource: keyof Bill;
  needed: number;
  available: number;
}

/** Each resource whose bill exceeds what its quota leaves; resources without a known quota pass. */
export function shortfalls(bill: Bill, headroom: Partial<Record<keyof Bill, Headroom>>): Shortfall[] {
  const out: Shortfall[] = [];
  for (const [k, needed] of Object.entries(bill) as [keyof Bill, number][]) {
    const h = headroom[k];
    if (!h || h.limit < 0 || needed === 0) continue;
    const available = Math.max(0, h.limit - h.used);
    if (needed > available) out.push({ resource: k, needed, available });
  }
  return out;
}
