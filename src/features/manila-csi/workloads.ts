// Manila CSI workloads: the controller (external-provisioner and external-resizer beside the plugin) and, on every
// node, the plugin's node service with the NFS CSI node plugin it forwards mounts to, sharing a host socket dir.

import { CLOUD_CONFIG_SECRET } from '../../bootstrap/addons/cloud-config/index.js';
import type { K8sObject } from '../../bootstrap/addons/framework.js';
import { fieldEnv, hostPath, mount, requests, TOLERATE_ALL, workload } from '../../bootstrap/addons/k8s.js';
import type { ManilaCsiSettings } from './addon.js';
import { MANILA_CONTROLLER_SA, MANILA_NODE_SA } from './rbac.js';

const DRIVER = 'nfs.manila.csi.openstack.org';
const PLUGIN_DIR = `/var/lib/kubelet/plugins/${DRIVER}`;
const NFS_DIR = '/var/lib/kubelet/plugins/csi-nfsplugin';
const CA_DIR = '/etc/manila-csi';
export const CA_PATH = `${CA_DIR}/ca.crt`;
const caVolume = { name: 'keystone-ca', secret: { secretName: CLOUD_CONFIG_SECRET, items: [{ key: 'ca.crt', path: 'ca.crt' }] } };
const caMount = mount('keystone-ca', CA_DIR, { readOnly: true });

function sidecar(name: string, image: string, args: string[]): Record<string, unknown> {
  return { name, image, args: ['--csi-address=/csi/csi.sock', ...args], volumeMounts: [mount('socket-dir', '/csi')], resources: requests('10m', '32Mi') };
}

function manilaContainer(s: ManilaCsiSettings, withCa: boolean): Record<string, unknown> {
  return {
    name: 'manila-csi-plugin',
    image: s.images.plugin,
    command: ['/bin/manila-csi-plugin'],
    args: [
      '--endpoint=unix:///csi/csi.sock',
      `--drivername=${DRIVER}`,
      '--share-protocol-selector=NFS',
      '--fwdendpoint=unix:///csi-nfs/csi.sock',
      `--cluster-id=${s.clusterId}`,
    ],
    volumeMounts: [mount('socket-dir', '/csi'), mount('nfs-plugin-dir', '/csi-nfs'), ...(withCa ? [caMount] : [])],
    resources: requests('10m', '32Mi'),
  };
}

export function controllerStatefulSet(s: ManilaCsiSettings, withCa: boolean): K8sObject {
  return workload(
    'StatefulSet',
    MANILA_CONTROLLER_SA,
    { app: MANILA_CONTROLLER_SA },
    {
      serviceAccountName: MANILA_CONTROLLER_SA,
      priorityClassName: 'system-cluster-critical',
      containers: [
        sidecar('csi-provisioner', s.images.provisioner, ['--timeout=3m', '--extra-create-metadata', '--leader-election=true']),
        sidecar('csi-resizer', s.images.resizer, ['--timeout=3m', '--handle-volume-inuse-error=false', '--leader-election=true']),
        manilaContainer(s, withCa),
      ],
      volumes: [
        { name: 'socket-dir', emptyDir: {} },
        // The node plugin of the node it runs on answers there (the plugin checks it at start).
        hostPath('nfs-plugin-dir', NFS_DIR, 'DirectoryOrCreate'),
        ...(withCa ? [caVolume] : []),
      ],
    },
    { serviceName: MANILA_CONTROLLER_SA, replicas: 1 },
  );
}

export function nodeDaemonSet(s: ManilaCsiSettings, withCa: boolean): K8sObject {
  return workload(
    'DaemonSet',
    MANILA_NODE_SA,
    { app: MANILA_NODE_SA },
    {
      serviceAccountName: MANILA_NODE_SA,
      automountServiceAccountToken: false,
      priorityClassName: 'system-node-critical',
      tolerations: TOLERATE_ALL,
      hostNetwork: true,
      dnsPolicy: 'ClusterFirstWithHostNet',
      containers: [
        {
          name: 'node-driver-registrar',
          image: s.images.nodeDriverRegistrar,
          args: ['--csi-address=/csi/csi.sock', `--kubelet-registration-path=${PLUGIN_DIR}/csi.sock`],
          volumeMounts: [mount('socket-dir', '/csi'), mount('registration-dir', '/registration')],
          resources: requests('10m', '32Mi'),
        },
        manilaContainer(s, withCa),
        {
          name: 'nfs',
          image: s.images.nfs,
          args: ['--v=2', '--nodeid=$(NODE_ID)', '--endpoint=unix:///csi-nfs/csi.sock'],
          env: [fieldEnv('NODE_ID', 'spec.nodeName')],
          // It mounts the shares on the host, into the pods' volumes.
          securityContext: { privileged: true, capabilities: { add: ['SYS_ADMIN'] }, allowPrivilegeEscalation: true },
          volumeMounts: [mount('nfs-plugin-dir', '/csi-nfs'), mount('pods-mount-dir', '/var/lib/kubelet/pods', { mountPropagation: 'Bidirectional' })],
          resources: requests('10m', '32Mi'),
        },
      ],
      volumes: [
        hostPath('socket-dir', PLUGIN_DIR, 'DirectoryOrCreate'),
        hostPath('nfs-plugin-dir', NFS_DIR, 'DirectoryOrCreate'),
        hostPath('registration-dir', '/var/lib/kubelet/plugins_registry', 'Directory'),
        hostPath('pods-mount-dir', '/var/lib/kubelet/pods', 'Directory'),
        ...(withCa ? [caVolume] : []),
      ],
    },
  );
}
