// What the test cloud holds beyond Keystone, made idempotently as the admin: devstack's flavors, the external
// network `public` on a loopback range, the node images the product's templates name (1 MiB of zeros each, as
// the simulator's seed names them), and the compute host mapped into cell1.
import { PUBLIC_CIDR, PUBLIC_GATEWAY, PUBLIC_POOL } from './addresses.js';
import { url, type Ports } from './layout.js';
import type { Session } from './rest.js';

/** devstack's m1 family (its ids), as src/cloudsim/seed.yaml. */
export const FLAVORS = [
  { id: '1', name: 'm1.tiny', vcpus: 1, ram: 512, disk: 1 },
  { id: '2', name: 'm1.small', vcpus: 1, ram: 2048, disk: 20 },
  { id: '3', name: 'm1.medium', vcpus: 2, ram: 4096, disk: 40 },
  { id: '4', name: 'm1.large', vcpus: 4, ram: 8192, disk: 80 },
] as const;

/** The node images of src/cloudsim/seed.yaml that the product's templates use (their properties; not their sizes). */
export const IMAGES = [
  { name: 'ubuntu-24.04', min_disk: 10, properties: { os_distro: 'ubuntu', os_version: '24.04', os_type: 'linux', hw_architecture: 'x86_64' } },
  { name: 'ubuntu-2404-kube-v1.35.5', min_disk: 10, properties: { os_distro: 'ubuntu', os_version: '24.04', os_type: 'linux', hw_architecture: 'x86_64', kube_version: 'v1.35.5' } },
  { name: 'fedora-coreos-43', min_disk: 10, properties: { os_distro: 'fedora-coreos', os_version: '43', os_type: 'linux', hw_architecture: 'x86_64' } },
] as const;

export async function ensureFlavors(s: Session, p: Ports): Promise<Record<string, string>> {
  const nova = url(p.nova, '/v2.1');
  const have = (await s.expect('GET', `${nova}/flavors/detail?is_public=None`, [200])).body.flavors as { id: string; name: string }[];
  const out: Record<string, string> = {};
  for (const f of FLAVORS) {
    const found = have.find((x) => x.name === f.name);
    out[f.name] = found ? found.id : (await s.expect('POST', `${nova}/flavors`, [200], { body: { flavor: f } })).body.flavor.id;
  }
  return out;
}

export interface PublicNetwork {
  id: string;
  subnetId: string;
  cidr: string;
}

/** `public`: flat, shared, external, the default; its subnet is loopback (floating IPs nobody dials but us). */
export async function ensurePublicNetwork(s: Session, p: Ports): Promise<PublicNetwork> {
  const neutron = url(p.neutron, '/v2.0');
  let net = (await s.expect('GET', `${neutron}/networks?name=public`, [200])).body.networks[0];
  net ??= (await s.expect('POST', `${neutron}/networks`, [201], {
    body: {
      network: {
        name: 'public', shared: true, 'router:external': true, is_default: true,
        'provider:network_type': 'flat', 'provider:physical_network': 'public',
        description: 'External network (floating IPs, router gateways) on a loopback range',
      },
    },
  })).body.network;
  let subnet = (await s.expect('GET', `${neutron}/subnets?network_id=${net.id}`, [200])).body.subnets[0];
  subnet ??= (await s.expect('POST', `${neutron}/subnets`, [201], {
    body: {
      subnet: {
        name: 'public-subnet', network_id: net.id, ip_version: 4, cidr: PUBLIC_CIDR, gateway_ip: PUBLIC_GATEWAY,
        enable_dhcp: false, allocation_pools: [PUBLIC_POOL],
      },
    },
  })).body.subnet;
  if (subnet.cidr !== PUBLIC_CIDR) throw new Error(`the public subnet is ${subnet.cidr}, not the loopback ${PUBLIC_CIDR}`);
  return { id: net.id, subnetId: subnet.id, cidr: subnet.cidr };
}

export async function ensureImages(s: Session, p: Ports): Promise<Record<string, string>> {
  const glance = url(p.glance, '/v2');
  const out: Record<string, string> = {};
  const zeros = new Uint8Array(1 << 20);
  for (const img of IMAGES) {
    const found = (await s.expect('GET', `${glance}/images?name=${encodeURIComponent(img.name)}`, [200])).body.images as { id: string; status: string }[];
    let image = found.find((i) => i.status === 'active');
    for (const stale of found.filter((i) => i.status !== 'active')) await s.expect('DELETE', `${glance}/images/${stale.id}`, [204, 404]);
    if (!image) {
      image = (await s.expect('POST', `${glance}/images`, [201], {
        body: { name: img.name, disk_format: 'raw', container_format: 'bare', visibility: 'public', min_disk: img.min_disk, ...img.properties },
      })).body as { id: string; status: string };
      await s.expect('PUT', `${glance}/images/${image.id}/file`, [204], { raw: zeros });
    }
    out[img.name] = image.id;
  }
  return out;
}

/**
 * Nova's services up and the compute node recorded, in Nova and in Placement (its resource provider is made
 * right after the node): then `nova-manage cell_v2 discover_hosts` can map it.
 */
export async function computeUp(s: Session, p: Ports, host: string): Promise<boolean> {
  const services = (await s.expect('GET', `${url(p.nova, '/v2.1')}/os-services`, [200])).body.services as { binary: string; state: string; status: string }[];
  const up = (b: string) => services.some((x) => x.binary === b && x.state === 'up' && x.status === 'enabled');
  if (!['nova-conductor', 'nova-scheduler', 'nova-compute'].every(up)) return false;
  const providers = await s.expect('GET', `${url(p.placement)}/resource_providers?name=${encodeURIComponent(host)}`, [200]);
  return (providers.body.resource_providers as unknown[]).length > 0;
}

/** The compute host mapped into a cell: only then does Nova list it as a hypervisor (and schedule to it). */
export async function hypervisorListed(s: Session, p: Ports, host: string): Promise<boolean> {
  const list = (await s.expect('GET', `${url(p.nova, '/v2.1')}/os-hypervisors`, [200])).body.hypervisors as { hypervisor_hostname: string; state: string }[];
  return list.some((h) => h.hypervisor_hostname === host && h.state === 'up');
}

/** Cinder's scheduler and volume service up. */
export async function volumeUp(s: Session, p: Ports, adminProjectId: string): Promise<boolean> {
  const res = await s.expect('GET', `${url(p.cinder)}/v3/${adminProjectId}/os-services`, [200]);
  const services = res.body.services as { binary: string; state: string }[];
  return ['cinder-scheduler', 'cinder-volume'].every((b) => services.some((x) => x.binary === b && x.state === 'up'));
}
