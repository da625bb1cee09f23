// Add-on `occm`: openstack-cloud-controller-manager on the control-plane nodes (spec k8s-bootstrap §1.7 step 1, §3).
// hostNetwork + tolerations so it runs before any CNI; it removes the nodes' uninitialized taint.
// Labels: cloud_provider_enabled / cloud_provider_tag are core (cloudProvider module); the image comes from cloudconf.ts.

import { CLOUD_CONFIG_DIR } from '../../cloudconf.js';
import { CLOUD_CONFIG_SECRET } from '../cloud-config/index.js';
import { defineAddon, ORDER, type K8sObject } from '../framework.js';
import { CONTROL_PLANE, hostPath, KUBE_SYSTEM, meta, mount, requests } from '../k8s.js';
import { OCCM_SA, occmRbac } from './rbac.js';

const NAME = 'openstack-cloud-controller-manager';

export const occmAddon = defineAddon({
  key: 'occm',
  kind: 'addon',
  name: 'occm',
  order: ORDER.occm,
  labels: {},
  resolve: () => ({ serviceAccount: OCCM_SA }),
  enabled: () => true,
  render(_spec, ctx): K8sObject[] {
    const labels = { 'k8s-app': NAME };
    const ds: K8sObject = {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: meta(NAME, KUBE_SYSTEM, labels),
      spec: {
        selector: { matchLabels: labels },
        updateStrategy: { type: 'RollingUpdate' },
        template: {
          metadata: { labels },
          spec: {
            ...CONTROL_PLANE,
            securityContext: { runAsUser: 1001 },
            serviceAccountName: OCCM_SA,
            priorityClassName: 'system-cluster-critical',
            hostNetwork: true,
            dnsPolicy: 'ClusterFirstWithHostNet',
            containers: [
              {
                name: NAME,
                image: ctx.cloud.occm.image,
                args: [
                  '/bin/openstack-cloud-controller-manager',
                  '--v=1',
                  `--cluster-name=${ctx.cloud.occm.clusterName}`,
                  `--cloud-config=${CLOUD_CONFIG_DIR}/cloud.conf`,
                  '--cloud-provider=openstack',
                  '--use-service-account-credentials=true',
                  '--bind-address=127.0.0.1',
                ],
                volumeMounts: [
                  mount('k8s-certs', '/etc/kubernetes/pki', { readOnly: true }),
                  mount('ca-certs', '/etc/ssl/certs', { readOnly: true }),
                  mount('cloud-config-volume', CLOUD_CONFIG_DIR, { readOnly: true }),
                ],
                resources: requests('200m', '64Mi'),
              },
            ],
            volumes: [
              hostPath('k8s-certs', '/etc/kubernetes/pki', 'DirectoryOrCreate'),
              hostPath('ca-certs', '/etc/ssl/certs', 'DirectoryOrCreate'),
              { name: 'cloud-config-volume', secret: { secretName: CLOUD_CONFIG_SECRET } },
            ],
          },
        },
      },
    };
    return [...occmRbac(), ds];
  },
});
