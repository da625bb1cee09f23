// Pods never reach the cloud's metadata service (169.254.169.254): it hands the node's user-data, and the
// instance's identity, to anything on the node that asks. Host processes (cloud-init, the kubelet, the
// bootstrap, host-network pods such as the Cinder CSI node plugin) still reach it: the guard drops only packets
// from the pod network, at the first hook they meet (the raw table's PREROUTING, before conntrack and before
// any CNI's own chains in the filter table could accept them), whatever the CNI (Calico or Flannel).
//
// Why a rule on each node for Calico too: a Calico GlobalNetworkPolicy selecting every pod in the default tier
// makes every other egress of those pods end-of-tier denied, or (with a final Pass/Allow rule) skips the users'
// own NetworkPolicies; the node rule denies exactly one address and leaves policy to the users.
import type { ClusterSpec } from '../../cluster-spec/types.js';

export const METADATA_ADDRESS = '169.254.169.254/32';
export const METADATA_GUARD_PATH = '/usr/local/bin/magnum-metadata-guard';
export const METADATA_GUARD_UNIT = 'magnum-metadata-guard.service';
export const METADATA_GUARD_UNIT_PATH = `/etc/systemd/system/${METADATA_GUARD_UNIT}`;
const COMMENT = 'magnum: pods may not reach the metadata service';

/** The guard's script: one rule, added once (checked first), on every boot before the kubelet. */
export function metadataGuardScript(spec: ClusterSpec): string {
  const rule = `PREROUTING -s ${spec.network.podCidr} -d ${METADATA_ADDRESS} -m comment --comment '${COMMENT}' -j DROP`;
  return [
    '#!/bin/bash',
    `# ${COMMENT} (the pod network ${spec.network.podCidr}); host processes and host-network pods still can.`,
    'set -euo pipefail',
    'command -v iptables >/dev/null 2>&1 || { echo "magnum-metadata-guard: iptables is required" >&2; exit 1; }',
    `iptables -w -t raw -C ${rule} 2>/dev/null || iptables -w -t raw -I ${rule.replace('PREROUTING', 'PREROUTING 1')}`,
    '',
  ].join('\n');
}

/** Runs the guard at every boot, before the kubelet starts any pod. */
export function metadataGuardUnit(): string {
  return [
    '[Unit]',
    'Description=magnum-ts: keep pods from the metadata service',
    'Before=kubelet.service containerd.service',
    'After=network-pre.target',
    '',
    '[Service]',
    'Type=oneshot',
    'RemainAfterExit=yes',
    `ExecStart=${METADATA_GUARD_PATH}`,
    '',
    '[Install]',
    'WantedBy=multi-user.target',
    '',
  ].join('\n');
}
