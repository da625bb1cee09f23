// Files on the nodes' disks that the worker replaces after the cluster exists (a control plane's
// static pods cannot read Secrets: the Barbican KMS plugin reads its cloud.conf from
// /etc/kubernetes). A DaemonSet on the nodes concerned runs a small agent: its container copies each
// file from a Secret to the node, atomically (a temporary file beside the target, then a rename;
// kubelet ignores hidden files in its manifests folder), in the order given (configuration before the
// static pod manifest that reads it, whose change makes the kubelet restart that pod), then reports
// Ready and idles. The worker removes both objects once it has seen the result.
import { createHash } from 'node:crypto';
import type { K8sObject } from './addons/framework.js';
import { CONTROL_PLANE, hostPath, KUBE_SYSTEM, meta, mount, requests, secret } from './addons/k8s.js';
import { SECRETS_CHECKSUM } from './addons/secret-checksums.js';

/** The agent: `$1` is its readiness file, then `source=target` pairs, copied in order, 0600, atomically. */
export const HOST_SYNC_SCRIPT = `set -eu
umask 077
ready="$1"
shift
for pair in "$@"; do
  src="\${pair%%=*}"
  dst="\${pair#*=}"
  tmp="$(dirname "$dst")/.$(basename "$dst").tmp"
  cp "$src" "$tmp"
  mv -f "$tmp" "$dst"
done
touch "$ready"
while :; do sleep 3600; done
`;

/** The container command that runs the agent (its arguments follow: the readiness file, then the pairs). */
export const HOST_SYNC_COMMAND = ['/bin/sh', '-c', HOST_SYNC_SCRIPT, 'host-sync'] as const;

const SOURCE_DIR = '/sync';
const STATE_DIR = '/state';
const HOST_ROOT = '/host';

export interface HostSync {
  /** Name of the DaemonSet and of its Secret (kube-system). */
  name: string;
  /** An image with a POSIX shell, cp and mv (busybox). */
  image: string;
  /** The files, written in this order: absolute paths on the node. */
  files: { path: string; content: string }[];
}

export const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

const volumeName = (dir: string): string => `host${dir.replace(/[^a-z0-9]+/g, '-')}`.replace(/-+$/, '');

/** The Secret holding the files and the DaemonSet (on every control plane) that writes them. */
export function hostSyncObjects(s: HostSync): K8sObject[] {
  const labels = { 'app.kubernetes.io/name': s.name };
  const keys = s.files.map((_, i) => `file-${i}`);
  const dirs = [...new Set(s.files.map((f) => f.path.slice(0, f.path.lastIndexOf('/'))))];
  const pairs = s.files.map((f, i) => `${SOURCE_DIR}/${keys[i]}=${HOST_ROOT}${f.path}`);
  const data = Object.fromEntries(s.files.map((f, i) => [keys[i]!, f.content]));
  // The hash of what it writes (as the add-ons' readers of Secrets carry): a change replaces the pods, which write again.
  const checksum = sha256(JSON.stringify(s.files.map((f) => [f.path, sha256(f.content)])));
  const ds: K8sObject = {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: meta(s.name, KUBE_SYSTEM, labels),
    spec: {
      selector: { matchLabels: labels },
      updateStrategy: { type: 'RollingUpdate' },
      template: {
        metadata: { labels, annotations: { [SECRETS_CHECKSUM]: checksum } },
        spec: {
          ...CONTROL_PLANE,
          hostNetwork: true,
          priorityClassName: 'system-node-critical',
          automountServiceAccountToken: false,
          securityContext: { runAsUser: 0, runAsGroup: 0 },
          containers: [
            {
              name: 'sync',
              image: s.image,
              command: [...HOST_SYNC_COMMAND],
              args: [`${STATE_DIR}/synced`, ...pairs],
              readinessProbe: { exec: { command: ['test', '-f', `${STATE_DIR}/synced`] }, periodSeconds: 2 },
              resources: requests('10m', '8Mi'),
              volumeMounts: [
                mount('files', SOURCE_DIR, { readOnly: true }),
                mount('state', STATE_DIR),
                ...dirs.map((d) => mount(volumeName(d), `${HOST_ROOT}${d}`)),
              ],
            },
          ],
          volumes: [
            { name: 'files', secret: { secretName: s.name, defaultMode: 0o400 } },
            { name: 'state', emptyDir: {} },
            ...dirs.map((d) => hostPath(volumeName(d), d, 'Directory')),
          ],
        },
      },
    },
  };
  return [secret(meta(s.name, KUBE_SYSTEM, labels), data), ds];
}
