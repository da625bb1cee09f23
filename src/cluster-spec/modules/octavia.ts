// Core modules: Octavia settings (shared by the API LB and OCCM) and the API server endpoint.

import { errors } from '../../domain/errors.js';
import { bool, cidrList, dnsZone, label, oneOf } from '../labels/types.js';
import { defineModule } from '../module.js';
import type { ApiServerSpec, LbAlgorithm, LbProvider, OctaviaSpec } from '../types.js';

export const octaviaModule = defineModule({
  key: 'octavia',
  kind: 'core',
  labels: {
    octavia_provider: label(
      oneOf(['amphora', 'amphorav2', 'octavia', 'ovn'] as const),
      'Octavia provider for the API LB and Service LBs (octavia = alias of amphora). Default amphora.',
    ),
    octavia_lb_algorithm: label(
      oneOf(['ROUND_ROBIN', 'LEAST_CONNECTIONS', 'SOURCE_IP', 'SOURCE_IP_PORT'] as const, { caseInsensitive: true }),
      'Pool algorithm (API LB pool and OCCM lb-method); ovn requires SOURCE_IP_PORT (its default).',
    ),
    octavia_lb_healthcheck: label(bool, 'Health monitor on the API LB pool and OCCM create-monitor. Default true.'),
  },
  resolve(l, ctx): OctaviaSpec {
    const provider: LbProvider = l.octavia_provider === 'octavia' ? 'amphora' : (l.octavia_provider ?? 'amphora');
    const algorithm: LbAlgorithm = l.octavia_lb_algorithm ?? (provider === 'ovn' ? 'SOURCE_IP_PORT' : 'ROUND_ROBIN');
    if (provider === 'ovn' && algorithm !== 'SOURCE_IP_PORT') {
      ctx.reject('octavia_lb_algorithm', 'The ovn provider supports only SOURCE_IP_PORT.');
    }
    if (provider !== 'ovn' && algorithm === 'SOURCE_IP_PORT') {
      ctx.reject('octavia_lb_algorithm', `The ${provider} provider does not support SOURCE_IP_PORT.`);
    }
    return { provider, algorithm, healthCheck: l.octavia_lb_healthcheck ?? true };
  },
});

export const apiServerModule = defineModule({
  key: 'apiServer',
  kind: 'core',
  labels: {
    master_lb_floating_ip_enabled: label(bool, 'Floating IP on the API LB VIP (default: the floating_ip_enabled field).', { ignored: 'without an API load balancer (master_lb_enabled)' }),
    master_lb_allowed_cidrs: label(cidrList, 'Listener allowed_cidrs and API security-group sources; the subnet CIDR is appended.', { ignored: 'without an API load balancer (master_lb_enabled)' }),
    api_dns_zone: label(
      dnsZone,
      "Not a Magnum label. A Designate zone of the cluster's project: the API endpoint gets the A record <cluster name>-<first 8 characters of the uuid>.<zone>, also in the apiserver certificate; with ingress_controller=octavia also *.<that name> to a floating IP kept for the ingress; removed with the cluster.",
    ),
  },
  resolve(l, ctx): ApiServerSpec {
    const port = ctx.template.apiserver_port ?? 6443;
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      throw errors.invalidInput('apiserver_port', port, 'Expected a TCP port between 1 and 65535.');
    }
    const dnsRecord = l.api_dns_zone ? { zone: l.api_dns_zone, name: `${apiHostLabel(ctx.cluster.name, ctx.cluster.uuid)}.${l.api_dns_zone}` } : null;
    if (dnsRecord && dnsRecord.name.length > 254) ctx.reject('api_dns_zone', `The API's name ${dnsRecord.name} would be longer than 253 characters.`);
    const lbEnabled = ctx.cluster.master_lb_enabled ?? ctx.template.master_lb_enabled ?? false;
    const fipField = ctx.cluster.floating_ip_enabled ?? ctx.template.floating_ip_enabled ?? true;
    const masters = ctx.spec.nodes?.masterCount ?? 1;
    if (!lbEnabled && masters > 1) {
      throw errors.invalidInput('master_count', masters, 'master_count must be 1 when master_lb_enabled is False.');
    }
    if (!lbEnabled) {
      for (const name of ['master_lb_floating_ip_enabled', 'master_lb_allowed_cidrs'] as const) {
        if (name in l) ctx.ignore(name, 'because the cluster has no API load balancer');
      }
      return { port, loadBalancer: null, floatingIp: fipField, dnsRecord };
    }
    const octavia = ctx.spec.octavia!;
    const subnet = ctx.spec.network!.subnetCidr;
    const allowed = (l.master_lb_allowed_cidrs ?? []).map((c) => c.text);
    const allowedCidrs = allowed.length === 0 ? [] : [...new Set([...allowed, subnet])];
    return {
      port,
      loadBalancer: { ...octavia, allowedCidrs },
      floatingIp: l.master_lb_floating_ip_enabled ?? fipField,
      dnsRecord,
    };
  },
});

/** `<name>-<uuid prefix>` as one DNS label: lower case, other characters as hyphens, at most 63 characters. */
export function apiHostLabel(name: string, uuid: string): string {
  const base = name.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 54).replace(/-+$/, '');
  const suffix = uuid.toLowerCase().replace(/[^0-9a-f]/g, '').slice(0, 8);
  return base ? `${base}-${suffix}` : `cluster-${suffix}`;
}
