// systemd units of a node. The bootstrap unit (Fedora CoreOS: Ignition enables it; on Ubuntu
// cloud-init's runcmd runs the script instead) and the mount units of the node's volumes are
// always written; containerd's and kubelet's units only matter on a node that installs them at boot,
// so they are laid down as files of the service's own directory and copied into
// /etc/systemd/system by the install functions (an image that carries them keeps its own).

import { mountUnitName, type NodeDisk } from './disks.js';

/** The service's directory of node files. */
export const MAGNUM_DIR = '/usr/local/lib/magnum';
export const BOOTSTRAP_SCRIPT_PATH = '/usr/local/bin/magnum-bootstrap';
export const BOOTSTRAP_UNIT = 'magnum-bootstrap.service';
export const UNIT_FILES = {
  containerd: `${MAGNUM_DIR}/containerd.service`,
  kubelet: `${MAGNUM_DIR}/kubelet.service`,
  kubeletKubeadm: `${MAGNUM_DIR}/10-kubeadm.conf`,
} as const;

const lines = (...l: string[]): string => `${l.join('\n')}\n`;

/** Runs the bootstrap once: a node that joined (it has a kubelet.conf) does not run it again on reboot. */
export function bootstrapUnit(): string {
  return lines(
    '[Unit]',
    'Description=magnum-ts node bootstrap (kubeadm)',
    'Wants=network-online.target',
    'After=network-online.target',
    'ConditionPathExists=!/etc/kubernetes/kubelet.conf',
    '',
    '[Service]',
    'Type=oneshot',
    'RemainAfterExit=yes',
    `ExecStart=${BOOTSTRAP_SCRIPT_PATH}`,
    'StandardOutput=journal+console',
    'StandardError=journal+console',
    'TimeoutStartSec=0',
    '',
    '[Install]',
    'WantedBy=multi-user.target',
  );
}

/** The mount of a node volume, ordered before what keeps its data there. */
export function mountUnit(d: NodeDisk): { name: string; contents: string } {
  const before = d.label === 'containerd' ? 'containerd.service' : 'kubelet.service';
  return {
    name: mountUnitName(d.mountPoint),
    contents: lines(
      '[Unit]',
      `Description=${d.label} volume`,
      `Before=local-fs.target ${before}`,
      '',
      '[Mount]',
      `What=/dev/disk/by-label/${d.label}`,
      `Where=${d.mountPoint}`,
      'Type=ext4',
      'Options=defaults,nofail,x-systemd.device-timeout=120',
      '',
      '[Install]',
      'RequiredBy=local-fs.target',
    ),
  };
}

/** containerd 2.x as installed from its release tarball (binaries under /usr/local). */
export function containerdUnit(): string {
  return lines(
    '[Unit]',
    'Description=containerd container runtime',
    'After=network.target local-fs.target',
    '',
    '[Service]',
    'ExecStartPre=-/sbin/modprobe overlay',
    'ExecStart=/usr/local/bin/containerd',
    'Type=notify',
    'Delegate=yes',
    'KillMode=process',
    'Restart=always',
    'RestartSec=5',
    'LimitNPROC=infinity',
    'LimitCORE=infinity',
    'TasksMax=infinity',
    'OOMScoreAdjust=-999',
    '',
    '[Install]',
    'WantedBy=multi-user.target',
  );
}

/** kubelet as installed from the release binaries (/usr/local/bin); kubeadm's drop-in gives its flags. */
export function kubeletUnit(): string {
  return lines(
    '[Unit]',
    'Description=kubelet: the Kubernetes node agent',
    'Wants=network-online.target',
    'After=network-online.target containerd.service',
    '',
    '[Service]',
    'ExecStart=/usr/local/bin/kubelet',
    'Restart=always',
    'RestartSec=10',
    'StartLimitInterval=0',
    '',
    '[Install]',
    'WantedBy=multi-user.target',
  );
}

/** The flags kubeadm expects the kubelet to run with: its kubeconfigs, its config file and the flags file kubeadm writes. */
export function kubeletKubeadmDropIn(): string {
  return lines(
    '[Service]',
    'Environment="KUBELET_KUBECONFIG_ARGS=--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf --kubeconfig=/etc/kubernetes/kubelet.conf"',
    'Environment="KUBELET_CONFIG_ARGS=--config=/var/lib/kubelet/config.yaml"',
    'EnvironmentFile=-/var/lib/kubelet/kubeadm-flags.env',
    'ExecStart=',
    'ExecStart=/usr/local/bin/kubelet $KUBELET_KUBECONFIG_ARGS $KUBELET_CONFIG_ARGS $KUBELET_KUBEADM_ARGS $KUBELET_EXTRA_ARGS',
  );
}
