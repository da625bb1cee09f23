// Cinder CSI workloads, after upstream cinder-csi-controllerplugin.yaml / cinder-csi-nodeplugin.yaml.

import { CLOUD_CONFIG_DIR } from '../../bootstrap/cloudconf.js';
import { CLOUD_CONFIG_SECRET } from '../../bootstrap/addons/cloud-config/index.js';
import type { K8sObject } from '../../bootstrap/addons/framework.js';
import { fieldEnv, hostPath, KUBE_SYSTEM, meta, mount, requests, TOLERATE_ALL } from '../../bootstrap/addons/k8s.js';
import type { CinderCsiSettings } from './addon.js';
import { CONTROLLER_SA, NODE_SA } from './rbac.js';

type Images = CinderCsiSettings['images'];
const SOCKET_DIR = '/csi';
const ADDRESS = `${SOCKET_DIR}/csi.sock`;
const CSI_ENDPOINT = `unix://${ADDRESS}`;
const PLUGIN_DIR = '/var/lib/kubelet/plugins/cinder.csi.openstack.org';
const cloudConfigVolume = { name: 'secret-cinderplugin', secret: { secretName: CLOUD_CONFIG_SECRET } };
const cloudConfigMount = mount('secret-cinderplugin', CLOUD_CONFIG_DIR, { readOnly: true });
const sockets = mount('socket-dir', SOCKET_DIR);

function sidecar(name: string, image: string, args: string[]): Record<string, unknown> {
  return {
    name,
    image,
    args: ['--csi-address=$(ADDRESS)', ...args],
    env: [{ name: 'ADDRESS', value: ADDRESS }],
    volumeMounts: [sockets],
    resources: requests('10m', '32Mi'),
  };
}

function pluginContainer(image: string, args: string[], extraMounts: Record<string, unknown>[], securityContext?: Record<string, unknown>) {
  return {
    name: 'cinder-csi-plugin',
    image,
    args: ['/bin/cinder-csi-plugin', '--endpoint=$(CSI_ENDPOINT)', `--cloud-config=${CLOUD_CONFIG_DIR}/cloud.conf`, ...args],
    env: [{ name: 'CSI_ENDPOINT', value: CSI_ENDPOINT }],
    ports: [{ containerPort: 9808, name: 'healthz', protocol: 'TCP' }],
    livenessProbe: { failureThreshold: 5, httpGet: { path: '/healthz', port: 'healthz' }, initialDelaySeconds: 10, timeoutSeconds: 10, periodSeconds: 60 },
    volumeMounts: [sockets, cloudConfigMount, ...extraMounts],
    resources: requests('20m', '64Mi'),
    ...(securityContext ? { securityContext } : {}),
  };
}

export function controllerDeployment(img: Images, cluster: string): K8sObject {
  const labels = { app: 'csi-cinder-controllerplugin' };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: meta('csi-cinder-controllerplugin', KUBE_SYSTEM, labels),
    spec: {
      replicas: 1,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          serviceAccountName: CONTROLLER_SA,
          priorityClassName: 'system-cluster-critical',
          containers: [
            sidecar('csi-attacher', img.attacher, ['--timeout=3m', '--leader-election=true', '--default-fstype=ext4']),
            sidecar('csi-provisioner', img.provisioner, ['--timeout=3m', '--default-fstype=ext4', '--feature-gates=Topology=true', '--extra-create-metadata', '--leader-election=true']),
            sidecar('csi-snapshotter', img.snapshotter, ['--timeout=3m', '--extra-create-metadata', '--leader-election=true']),
            sidecar('csi-resizer', img.resizer, ['--timeout=3m', '--handle-volume-inuse-error=false', '--leader-election=true']),
            sidecar('liveness-probe', img.livenessProbe, []),
            pluginContainer(img.plugin, [`--cluster=${cluster}`, '--provide-node-service=false'], []),
          ],
          volumes: [{ name: 'socket-dir', emptyDir: {} }, cloudConfigVolume],
        },
      },
    },
  };
}

export function nodeDaemonSet(img: Images): K8sObject {
  const labels = { app: 'csi-cinder-nodeplugin' };
  const bidirectional = { mountPropagation: 'Bidirectional' };
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: meta('csi-cinder-nodeplugin', KUBE_SYSTEM, labels),
    spec: {
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          tolerations: TOLERATE_ALL,
          serviceAccountName: NODE_SA,
          priorityClassName: 'system-node-critical',
          hostNetwork: true,
          containers: [
            {
              ...sidecar('node-driver-registrar', img.nodeDriverRegistrar, [`--kubelet-registration-path=${PLUGIN_DIR}/csi.sock`]),
              env: [{ name: 'ADDRESS', value: ADDRESS }, { name: 'DRIVER_REG_SOCK_PATH', value: `${PLUGIN_DIR}/csi.sock` }, fieldEnv('KUBE_NODE_NAME', 'spec.nodeName')],
              volumeMounts: [sockets, mount('registration-dir', '/registration')],
            },
            sidecar('liveness-probe', img.livenessProbe, []),
            pluginContainer(
              img.plugin,
              ['--provide-controller-service=false'],
              [mount('kubelet-dir', '/var/lib/kubelet', bidirectional), mount('pods-probe-dir', '/dev', bidirectional)],
              { privileged: true, capabilities: { add: ['SYS_ADMIN'] }, allowPrivilegeEscalation: true },
            ),
          ],
          volumes: [
            { ...hostPath('socket-dir', PLUGIN_DIR, 'DirectoryOrCreate') },
            hostPath('registration-dir', '/var/lib/kubelet/plugins_registry/', 'Directory'),
            hostPath('kubelet-dir', '/var/lib/kubelet', 'Directory'),
            hostPath('pods-probe-dir', '/dev', 'Directory'),
            cloudConfigVolume,
          ],
        },
      },
    },
  };
}
