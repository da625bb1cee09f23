// Core module: CNI choice, pod/service/subnet CIDRs and their overlap rules, encapsulation.

import { errors } from '../../domain/errors.js';
import { nthAddress, overlaps, parseCidr, reservedRange, size, type Cidr } from '../cidr.js';
import { cidr, int, label, oneOf } from '../labels/types.js';
import { defineModule, type ModuleContext } from '../module.js';
import { checkProxies } from '../proxy.js';
import type { FlannelBackend, NetworkDriver, NetworkSpec } from '../types.js';

const DRIVERS: readonly NetworkDriver[] = ['calico', 'flannel'];
const DEFAULT_POD = '10.100.0.0/16';
const DEFAULT_SERVICE = '10.254.0.0/16';
const DEFAULT_SUBNET = '10.0.0.0/24';

export const networkModule = defineModule({
  key: 'network',
  kind: 'core',
  labels: {
    calico_ipv4pool: label(cidr, `Pod CIDR with network_driver=calico (default ${DEFAULT_POD}).`, { ignored: 'unless network_driver=calico' }),
    calico_ipv4pool_ipip: label(
      oneOf(['Always', 'CrossSubnet', 'Never', 'Off'] as const),
      'Calico IP-in-IP mode; Off/Never = unencapsulated (pod CIDR becomes an allowed address pair). Default Off.', { ignored: 'unless network_driver=calico' }
    ),
    flannel_network_cidr: label(cidr, `Pod CIDR with network_driver=flannel (default ${DEFAULT_POD}).`, { ignored: 'unless network_driver=flannel' }),
    flannel_backend: label(
      oneOf(['vxlan', 'host-gw', 'wireguard', 'udp'] as const),
      'Flannel backend: vxlan (default), host-gw or wireguard; udp is rejected.', { ignored: 'unless network_driver=flannel' }
    ),
    flannel_network_subnetlen: label(int(16, 28), 'Per-node pod subnet prefix length (kube-controller-manager node-cidr-mask-size), default 24.', { ignored: 'unless network_driver=flannel' }),
    service_cluster_ip_range: label(cidr, `Service CIDR (default ${DEFAULT_SERVICE}).`),
    fixed_subnet_cidr: label(cidr, `CIDR of the subnet created when the cluster names no fixed_subnet (default ${DEFAULT_SUBNET}); never touching loopback, link-local (the metadata service), multicast, 0.0.0.0/8 or 240.0.0.0/4.`, { ignored: 'when the cluster uses an existing subnet (fixed_subnet)' }),
  },
  resolve(l, ctx): NetworkSpec {
    const driver = networkDriver(ctx);
    const foreign = driver === 'calico' ? ['flannel_network_cidr', 'flannel_backend', 'flannel_network_subnetlen'] : ['calico_ipv4pool', 'calico_ipv4pool_ipip'];
    for (const name of foreign) {
      if (name in l) ctx.ignore(name, `with network_driver=${driver}`);
    }
    const podLabel = driver === 'calico' ? 'calico_ipv4pool' : 'flannel_network_cidr';
    const pod = (driver === 'calico' ? l.calico_ipv4pool : l.flannel_network_cidr) ?? parseCidr(DEFAULT_POD);
    const service = l.service_cluster_ip_range ?? parseCidr(DEFAULT_SERVICE);
    const fixedSubnet = ctx.cluster.fixed_subnet || ctx.template.fixed_subnet || '';
    const { subnet, subnetLabel } = subnetOf(l.fixed_subnet_cidr, fixedSubnet, ctx);

    if (overlaps(pod, service)) ctx.reject(podLabel, `Overlaps the service CIDR ${service.text}.`, pod.text);
    if (overlaps(pod, subnet)) ctx.reject(podLabel, `Overlaps the cluster subnet ${subnet.text}.`, pod.text);
    if (overlaps(service, subnet)) {
      ctx.reject('service_cluster_ip_range', `Overlaps the cluster subnet ${subnet.text}.`, service.text);
    }
    if (subnetLabel && subnet.prefix > 28) ctx.reject(subnetLabel, 'The cluster subnet must be /28 or larger.', subnet.text);
    if (size(service) < 256) ctx.reject('service_cluster_ip_range', 'The service CIDR must be /24 or larger.', service.text);

    const out: NetworkSpec = {
      driver,
      podCidr: pod.text,
      serviceCidr: service.text,
      subnetCidr: subnet.text,
      createNetwork: fixedSubnet === '' && !(ctx.cluster.fixed_network || ctx.template.fixed_network),
      dnsServiceIp: nthAddress(service, 10),
      clusterDomain: 'cluster.local',
      encapsulated: true,
      proxy: proxyOf(ctx),
    };
    if (driver === 'calico') {
      const ipipMode = l.calico_ipv4pool_ipip ?? 'Off';
      out.calico = { ipipMode };
      out.encapsulated = ipipMode === 'Always' || ipipMode === 'CrossSubnet';
    } else {
      const backend = l.flannel_backend ?? 'vxlan';
      if (backend === 'udp') ctx.reject('flannel_backend', 'The udp backend was removed from flannel; use vxlan, host-gw or wireguard.');
      const subnetLen = l.flannel_network_subnetlen ?? 24;
      if (subnetLen < pod.prefix + 1) {
        ctx.reject('flannel_network_subnetlen', `Must be longer than the pod CIDR prefix /${pod.prefix}.`);
      }
      out.flannel = { backend: backend as FlannelBackend, subnetLen };
      out.encapsulated = backend !== 'host-gw';
    }
    return out;
  },
});

function networkDriver(ctx: ModuleContext): NetworkDriver {
  const d = ctx.template.network_driver ?? 'flannel';
  if (!(DRIVERS as readonly string[]).includes(d)) throw errors.unsupportedNetworkDriver(d, 'kubernetes', [...DRIVERS]);
  return d as NetworkDriver;
}

function subnetOf(labelCidr: Cidr | undefined, fixedSubnet: string, ctx: ModuleContext): { subnet: Cidr; subnetLabel?: string } {
  if (fixedSubnet === '') {
    const reserved = labelCidr && reservedRange(labelCidr);
    if (reserved) ctx.reject('fixed_subnet_cidr', `A cluster subnet may not overlap ${reserved}.`, labelCidr.text);
    return { subnet: labelCidr ?? parseCidr(DEFAULT_SUBNET), subnetLabel: 'fixed_subnet_cidr' };
  }
  if (labelCidr) ctx.ignore('fixed_subnet_cidr', `when the cluster uses an existing subnet (fixed_subnet ${fixedSubnet})`);
  if (!ctx.subnetCidr) throw errors.invalidInput('fixed_subnet', fixedSubnet, 'The CIDR of the fixed subnet is unknown.');
  return { subnet: parseCidr(ctx.subnetCidr) };
}

function proxyOf(ctx: ModuleContext): NetworkSpec['proxy'] {
  const { http_proxy: http, https_proxy: https, no_proxy: no } = ctx.template;
  checkProxies(ctx.template);
  if (!http && !https) return null;
  return { http: http ?? '', https: https ?? '', noProxy: (no ?? '').split(',').map((s) => s.trim()).filter(Boolean) };
}
