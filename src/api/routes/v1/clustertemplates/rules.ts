// Semantic checks of a template beyond its schema, in Magnum's order (spec §3.1), and the
// defaults the server fills in.
import { errors } from '../../../../domain/errors.js';
import type { ClusterTemplateRow } from '../../../../db/entities/cluster-template.js';

export type Flavor = 'template' | 'baymodel';

const SUPPORTED_COES = ['kubernetes', 'swarm', 'swarm-mode'];
const NETWORK_DRIVERS: Record<string, string[]> = {
  kubernetes: ['flannel', 'calico'],
  swarm: ['docker', 'flannel'],
  'swarm-mode': ['docker'],
};
const DEFAULT_NETWORK_DRIVER: Record<string, string> = { kubernetes: 'flannel', swarm: 'docker', 'swarm-mode': 'docker' };
const VOLUME_DRIVERS: Record<string, string[]> = { kubernetes: ['cinder'], swarm: ['rexray'], 'swarm-mode': ['rexray'] };

/** Drivers Zed ships for the other COEs, as (server_type, os_distro, coe); Kubernetes follows the node image contract. */
const DRIVERS = new Set([
  'vm/fedora-atomic/swarm',
  'vm/fedora-atomic/swarm-mode',
  'vm/ubuntu/mesos',
]);

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

export function checkDns(value: string | null, flavor: Flavor): void {
  if (value === null) return;
  if (flavor === 'baymodel') {
    if (!IPV4.test(value)) throw errors.dnsSingle(value);
    return;
  }
  if (!value.split(',').every((a) => IPV4.test(a.trim()))) throw errors.dnsList(value);
}

/** COE, network/volume driver and storage checks; fills the network driver default. */
export function checkDrivers(t: Pick<ClusterTemplateRow, 'coe' | 'network_driver' | 'volume_driver' | 'docker_storage_driver' | 'docker_volume_size'>): void {
  if (!SUPPORTED_COES.includes(t.coe)) throw errors.unsupportedCoe(t.coe || null);
  t.network_driver ??= DEFAULT_NETWORK_DRIVER[t.coe]!;
  const nets = NETWORK_DRIVERS[t.coe]!;
  if (!nets.includes(t.network_driver)) throw errors.unsupportedNetworkDriver(t.network_driver, t.coe, nets);
  const vols = VOLUME_DRIVERS[t.coe]!;
  if (t.volume_driver !== null && !vols.includes(t.volume_driver)) {
    throw errors.unsupportedVolumeDriver(t.volume_driver, t.coe, vols);
  }
  if (t.docker_storage_driver === 'devicemapper' && t.docker_volume_size !== null && t.docker_volume_size < 3) {
    throw errors.devicemapperSize();
  }
}

/** A driver for the COE and the image's distro: Kubernetes asks the node image contract (checkNodeImage), the others Zed's list. */
export function checkDriverExists(serverType: string, distro: string, coe: string): void {
  if (coe === 'kubernetes') return;
  if (!DRIVERS.has(`${serverType}/${distro}/${coe}`)) throw errors.clusterTypeUnsupported(serverType, distro, coe);
}

/** Values of NOT NULL attributes when absent or removed. */
export const DEFAULTS = {
  registry_enabled: false,
  tls_disabled: false,
  public: false,
  master_lb_enabled: false,
  floating_ip_enabled: true,
  hidden: false,
  server_type: 'vm',
} as const;
