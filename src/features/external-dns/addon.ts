// Add-on `external-dns`: ExternalDNS publishes the names of the cluster's LoadBalancer Services and Ingresses
// (annotation external-dns.alpha.kubernetes.io/hostname, or the Ingress hosts) as records in a Designate zone of
// the cluster's project, with the cluster's application credential. Its TXT registry marks every record it owns
// with the cluster uuid (--txt-owner-id), which is how the delete finds and removes what it published
// (workers/cluster/external-dns.ts), and why it never touches records it does not own.

import { dnsZone, imageTag, label } from '../../cluster-spec/labels/types.js';
import { defineAddon, ORDER, settingsOf, type K8sObject } from '../../bootstrap/addons/framework.js';
import { CLOUD_CONFIG_SECRET } from '../../bootstrap/addons/cloud-config/index.js';
import { clusterRole, clusterRoleBinding, KUBE_SYSTEM, meta, mount, READ, requests, rule, sa, secret, serviceAccount, workload } from '../../bootstrap/addons/k8s.js';
import type { CloudCredential } from '../../bootstrap/cloudconf.js';

const NAME = 'external-dns';
const LABELS = { 'k8s-app': NAME };
export const EXTERNAL_DNS_SECRET = 'external-dns-openstack';
const CA_DIR = '/etc/external-dns';

export interface ExternalDnsSettings {
  /** The Designate zone records are published in (trailing dot), or null when the add-on is off. */
  zone: string | null;
  /** --txt-owner-id: the cluster uuid, which the delete's sweep matches. */
  ownerId: string;
  image: string;
}

export const externalDnsAddon = defineAddon({
  key: 'externalDns',
  kind: 'addon',
  name: 'external-dns',
  order: ORDER.externalDns,
  labels: {
    external_dns_zone: label(
      dnsZone,
      "Not a Magnum label. A Designate zone of the cluster's project: ExternalDNS publishes the cluster's LoadBalancer Services and Ingresses there (hostname annotation or Ingress hosts), owning its records by the cluster uuid; the delete removes them. Default: none (off).",
    ),
    external_dns_tag: label(imageTag, 'Not a Magnum label. ExternalDNS image tag override (registry.k8s.io/external-dns/external-dns); default pinned in the version table.', { ignored: 'without external_dns_zone' }),
  },
  resolve(l, ctx): ExternalDnsSettings {
    const k = ctx.spec.kubernetes!;
    if (!l.external_dns_zone && l.external_dns_tag !== undefined) ctx.ignore('external_dns_tag');
    const tag = l.external_dns_tag ?? k.components.externalDns;
    return { zone: l.external_dns_zone ?? null, ownerId: ctx.cluster.uuid, image: `${k.imageRepository || 'registry.k8s.io/external-dns'}/external-dns:${tag}` };
  },
  enabled: (spec) => settingsOf<ExternalDnsSettings>(spec, 'externalDns').zone !== null,
  render(spec, ctx): K8sObject[] {
    const s = settingsOf<ExternalDnsSettings>(spec, 'externalDns');
    const withCa = ctx.cloud.credential.caCertPem !== undefined;
    return [
      serviceAccount(NAME),
      clusterRole(`system:${NAME}`, [
        rule([''], ['services', 'endpoints', 'pods', 'nodes'], READ),
        rule(['discovery.k8s.io'], ['endpointslices'], READ),
        rule(['networking.k8s.io'], ['ingresses'], READ),
      ]),
      clusterRoleBinding(`system:${NAME}`, `system:${NAME}`, [sa(NAME)]),
      secret(meta(EXTERNAL_DNS_SECRET, KUBE_SYSTEM, LABELS), credentialEnv(ctx.cloud.credential)),
      deployment(s, withCa),
    ];
  },
});

/**
 * The environment gophercloud's AuthOptionsFromEnv reads. ExternalDNS appends `v2.0/` to an auth URL that does not
 * end in `/v2.0/` or `/v3/`, so the URL is given in the `/v3/` form.
 */
export function credentialEnv(c: CloudCredential): Record<string, string> {
  const base = c.authUrl.replace(/\/+$/, '');
  return {
    OS_AUTH_URL: `${/\/v3$/.test(base) ? base : `${base}/v3`}/`,
    OS_REGION_NAME: c.region,
    OS_APPLICATION_CREDENTIAL_ID: c.applicationCredentialId,
    OS_APPLICATION_CREDENTIAL_SECRET: c.applicationCredentialSecret,
  };
}

function deployment(s: ExternalDnsSettings, withCa: boolean): K8sObject {
  return workload(
    'Deployment',
    NAME,
    LABELS,
    {
      serviceAccountName: NAME,
      securityContext: { runAsNonRoot: true, runAsUser: 65534, fsGroup: 65534, seccompProfile: { type: 'RuntimeDefault' } },
      tolerations: [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' }],
      containers: [
        {
          name: NAME,
          image: s.image,
          imagePullPolicy: 'IfNotPresent',
          args: [
            '--source=service',
            '--source=ingress',
            '--provider=designate',
            `--domain-filter=${s.zone!.replace(/\.$/, '')}`,
            '--registry=txt',
            `--txt-owner-id=${s.ownerId}`,
            // Records of a Service or Ingress that goes are removed (owned ones only).
            '--policy=sync',
            '--interval=1m',
          ],
          envFrom: [{ secretRef: { name: EXTERNAL_DNS_SECRET } }],
          ...(withCa ? { env: [{ name: 'OPENSTACK_CA_FILE', value: `${CA_DIR}/ca.crt` }], volumeMounts: [mount('keystone-ca', CA_DIR, { readOnly: true })] } : {}),
          resources: requests('10m', '50Mi'),
          securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, readOnlyRootFilesystem: true },
        },
      ],
      ...(withCa ? { volumes: [{ name: 'keystone-ca', secret: { secretName: CLOUD_CONFIG_SECRET, items: [{ key: 'ca.crt', path: 'ca.crt' }] } }] } : {}),
    },
    // One writer at a time: two would race on the same records.
    { replicas: 1, strategy: { type: 'Recreate' } },
  );
}
