// Add-on `ingress`: octavia-ingress-controller (spec k8s-bootstrap §3), one Octavia load balancer per Ingress whose
// members are the Services' NodePorts on the cluster nodes. Ingresses select it with the annotation
// `kubernetes.io/ingress.class: openstack`. It talks to Keystone and Octavia with the cluster's application
// credential (the values of cloud.conf, in the YAML form this controller reads).
//
// ingress_controller=nginx is rejected: ingress-nginx is retired upstream (no fixes after March 2026).
// ingress_controller=traefik is rejected too: Magnum's traefik was a v1.7 DaemonSet on `ingress`-role nodes, which
// neither exists upstream any more nor has node roles to land on here. Both reasons name the alternatives.

import { stringify } from 'yaml';
import type { CloudConfigOutput } from '../../bootstrap/cloudconf.js';
import { imageTag, label, oneOf } from '../../cluster-spec/labels/types.js';
import { defineAddon, ORDER, settingsOf, type K8sObject } from '../../bootstrap/addons/framework.js';
import { clusterRole, clusterRoleBinding, KUBE_SYSTEM, meta, mount, READ, requests, rule, sa, secret, serviceAccount, workload } from '../../bootstrap/addons/k8s.js';

const NAME = 'octavia-ingress-controller';
const LABELS = { 'k8s-app': NAME };
export const INGRESS_CONFIG_SECRET = 'octavia-ingress-controller-config';
export const INGRESS_CLASS_ANNOTATION = 'openstack';
const CONFIG_DIR = '/etc/config';

const RETIRED: Record<string, string> = {
  nginx: 'ingress-nginx is retired upstream (no fixes after March 2026). Use ingress_controller=octavia, or install a Gateway API implementation (Envoy Gateway, Cilium, Traefik v3) in the cluster.',
  traefik: "Magnum's traefik ingress was Traefik v1.7 on 'ingress'-role nodes; it is not provided. Use ingress_controller=octavia, or install Traefik v3 (Gateway API) in the cluster.",
};

export interface IngressSettings {
  controller: 'octavia' | null;
  image: string;
  /**
   * With the API's DNS zone (label api_dns_zone): the wildcard record `*.<API name>` for the cluster's services
   * (OpenStack's Kubernetes starter kit: "a wildcard DNS record for any services running in the cluster"),
   * pointing at the floating IP the service reserves for the ingress.
   */
  wildcardDns: { zone: string; name: string } | null;
}

export const ingressAddon = defineAddon({
  key: 'ingress',
  kind: 'addon',
  name: 'ingress',
  order: ORDER.ingress,
  labels: {
    ingress_controller: label(
      oneOf(['', 'octavia', 'nginx', 'traefik'], { caseInsensitive: true }),
      "'' (default) = none; octavia = octavia-ingress-controller (one Octavia LB per Ingress with class annotation 'openstack'); nginx and traefik are rejected with the reason (retired upstream).",
    ),
    octavia_ingress_controller_tag: label(imageTag, 'octavia-ingress-controller image tag override; must match the Kubernetes minor.', { ignored: 'without ingress_controller=octavia' }),
  },
  resolve(l, ctx): IngressSettings {
    const k = ctx.spec.kubernetes!;
    const choice = (l.ingress_controller ?? '').toLowerCase();
    const reason = RETIRED[choice];
    if (reason) ctx.reject('ingress_controller', reason);
    const tag = l.octavia_ingress_controller_tag ?? k.components.octaviaIngressController;
    if (!tag.startsWith(`v${k.minor}.`)) {
      ctx.reject('octavia_ingress_controller_tag', `Must belong to the Kubernetes ${k.minor} release train (v${k.minor}.x), like ${k.components.octaviaIngressController}.`);
    }
    if (choice !== 'octavia' && l.octavia_ingress_controller_tag !== undefined) {
      ctx.ignore('octavia_ingress_controller_tag');
    }
    const api = ctx.spec.apiServer?.dnsRecord;
    return {
      controller: choice === 'octavia' ? 'octavia' : null,
      image: `${k.imageRepository || 'registry.k8s.io/provider-os'}/${NAME}:${tag}`,
      wildcardDns: choice === 'octavia' && api ? { zone: api.zone, name: `*.${api.name}` } : null,
    };
  },
  enabled: (spec) => settingsOf<IngressSettings>(spec, 'ingress').controller !== null,
  render(spec, ctx): K8sObject[] {
    const s = settingsOf<IngressSettings>(spec, 'ingress');
    // Ingresses need L7 policies, which Octavia's OVN provider lacks: their LBs use amphora even on OVN clusters
    const provider = spec.octavia.provider === 'ovn' ? 'amphora' : spec.octavia.provider;
    const data: Record<string, string> = { 'config.yaml': controllerConfig(spec.cloudProvider.clusterName, provider, ctx.cloud) };
    if (ctx.cloud.credential.caCertPem) data['ca.crt'] = ctx.cloud.credential.caCertPem;
    return [
      serviceAccount(NAME),
      clusterRole(`system:${NAME}`, [
        rule(['networking.k8s.io'], ['ingresses'], [...READ, 'update', 'patch']),
        rule(['networking.k8s.io'], ['ingresses/status'], ['update', 'patch']),
        rule([''], ['services', 'nodes', 'endpoints', 'secrets'], READ),
        rule(['discovery.k8s.io'], ['endpointslices'], READ),
        rule([''], ['events'], ['create', 'patch', 'update']),
        rule(['coordination.k8s.io'], ['leases'], ['get', 'create', 'update']),
      ]),
      clusterRoleBinding(`system:${NAME}`, `system:${NAME}`, [sa(NAME)]),
      secret(meta(INGRESS_CONFIG_SECRET, KUBE_SYSTEM, LABELS), data),
      statefulSet(s.image),
    ];
  },
});

/** The controller's YAML config: cluster name (LB naming), credential, and where LBs and floating IPs go. */
export function controllerConfig(clusterName: string, provider: string, cloud: CloudConfigOutput): string {
  const c = cloud.credential;
  return stringify(
    {
      'cluster-name': clusterName,
      openstack: {
        'auth-url': c.authUrl,
        region: c.region,
        'application-credential-id': c.applicationCredentialId,
        'application-credential-secret': c.applicationCredentialSecret,
        ...(c.caCertPem ? { 'ca-file': `${CONFIG_DIR}/ca.crt` } : {}),
      },
      octavia: {
        'subnet-id': cloud.network.subnetId,
        ...(cloud.network.floatingNetworkId ? { 'floating-network-id': cloud.network.floatingNetworkId } : {}),
        provider,
        'manage-security-groups': false,
      },
    },
    { lineWidth: 0 },
  );
}

function statefulSet(img: string): K8sObject {
  return workload('StatefulSet', NAME, LABELS, {
    serviceAccountName: NAME,
    priorityClassName: 'system-cluster-critical',
    tolerations: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }],
    containers: [
      {
        name: NAME,
        image: img,
        args: ['/bin/octavia-ingress-controller', `--config=${CONFIG_DIR}/config.yaml`],
        volumeMounts: [mount('config', CONFIG_DIR, { readOnly: true })],
        resources: requests('50m', '64Mi'),
      },
    ],
    volumes: [{ name: 'config', secret: { secretName: INGRESS_CONFIG_SECRET } }],
  }, { serviceName: NAME, replicas: 1 });
}
