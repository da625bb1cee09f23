// Add-on `cni-flannel` (network_driver=flannel): upstream kube-flannel.yml reduced to its objects, with the pod CIDR,
// per-node subnet length and backend from the network spec. Flannel uses the node podCIDRs kube-controller-manager
// allocates (--kube-subnet-mgr), so SubnetLen equals the core's node-cidr-mask-size.

import { imageTag, label } from '../../../cluster-spec/labels/types.js';
import type { ClusterSpec } from '../../../cluster-spec/types.js';
import { defineAddon, ORDER, settingsOf, type K8sObject } from '../framework.js';
import { clusterRole, clusterRoleBinding, fieldEnv, hostPath, meta, mount, requests, rule, sa, serviceAccount, TOLERATE_ALL } from '../k8s.js';

const NS = 'kube-flannel';
const SA = 'flannel';
const REPO = 'ghcr.io/flannel-io';

export interface FlannelSettings {
  image: string;
  cniPluginImage: string;
}

const BACKEND_TYPE = { vxlan: 'vxlan', 'host-gw': 'host-gw', wireguard: 'wireguard' } as const;

export const flannelAddon = defineAddon({
  key: 'cniFlannel',
  kind: 'addon',
  name: 'cni-flannel',
  order: ORDER.cni,
  labels: {
    flannel_tag: label(imageTag, 'flannel image tag (ghcr.io/flannel-io/flannel); default pinned per Kubernetes minor.', { ignored: 'unless network_driver=flannel' }),
    flannel_cni_tag: label(imageTag, 'flannel-cni-plugin image tag; default pinned per Kubernetes minor.', { ignored: 'unless network_driver=flannel' }),
  },
  resolve(l, ctx): FlannelSettings | null {
    const driver = ctx.spec.network!.driver;
    if (driver !== 'flannel') {
      for (const n of ['flannel_tag', 'flannel_cni_tag'] as const) if (n in l) ctx.ignore(n, `with network_driver=${driver}`);
      return null;
    }
    const row = ctx.spec.kubernetes!.components;
    const k = ctx.spec.kubernetes!;
    const repo = k.imageRepository || REPO;
    return {
      image: `${repo}/flannel:${l.flannel_tag ?? row.flannel}`,
      cniPluginImage: `${repo}/flannel-cni-plugin:${l.flannel_cni_tag ?? row.flannelCniPlugin}`,
    };
  },
  enabled: (spec) => spec.network.driver === 'flannel',
  render(spec): K8sObject[] {
    const s = settingsOf<FlannelSettings>(spec, 'cniFlannel');
    return [
      { apiVersion: 'v1', kind: 'Namespace', metadata: meta(NS, undefined, { 'pod-security.kubernetes.io/enforce': 'privileged', 'k8s-app': 'flannel' }) },
      serviceAccount(SA, NS),
      clusterRole('flannel', [
        rule([''], ['pods'], ['get']),
        rule([''], ['nodes'], ['get', 'list', 'watch']),
        rule([''], ['nodes/status'], ['patch']),
      ]),
      clusterRoleBinding('flannel', 'flannel', [sa(SA, NS)]),
      configMap(spec),
      daemonSet(s),
    ];
  },
});

function configMap(spec: ClusterSpec): K8sObject {
  const f = spec.network.flannel!;
  const cni = {
    name: 'cbr0',
    cniVersion: '0.3.1',
    plugins: [{ type: 'flannel', delegate: { hairpinMode: true, isDefaultGateway: true } }, { type: 'portmap', capabilities: { portMappings: true } }],
  };
  const net = { Network: spec.network.podCidr, SubnetLen: f.subnetLen, EnableNFTables: false, Backend: { Type: BACKEND_TYPE[f.backend] } };
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: meta('kube-flannel-cfg', NS, { app: 'flannel', tier: 'node' }),
    data: { 'cni-conf.json': `${JSON.stringify(cni, null, 2)}\n`, 'net-conf.json': `${JSON.stringify(net, null, 2)}\n` },
  };
}

function daemonSet(s: FlannelSettings): K8sObject {
  const labels = { app: 'flannel', 'k8s-app': 'flannel', tier: 'node' };
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: meta('kube-flannel-ds', NS, labels),
    spec: {
      selector: { matchLabels: { app: 'flannel' } },
      template: {
        metadata: { labels },
        spec: {
          affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }] }] } } },
          hostNetwork: true,
          priorityClassName: 'system-node-critical',
          tolerations: TOLERATE_ALL,
          serviceAccountName: SA,
          initContainers: [
            { name: 'install-cni-plugin', image: s.cniPluginImage, command: ['cp'], args: ['-f', '/flannel', '/opt/cni/bin/flannel'], volumeMounts: [mount('cni-plugin', '/opt/cni/bin')], resources: requests('10m', '16Mi') },
            { name: 'install-cni', image: s.image, command: ['cp'], args: ['-f', '/etc/kube-flannel/cni-conf.json', '/etc/cni/net.d/10-flannel.conflist'], volumeMounts: [mount('cni', '/etc/cni/net.d'), mount('flannel-cfg', '/etc/kube-flannel/')], resources: requests('10m', '16Mi') },
          ],
          containers: [
            {
              name: 'kube-flannel',
              image: s.image,
              command: ['/opt/bin/flanneld'],
              args: ['--ip-masq', '--kube-subnet-mgr'],
              resources: requests('100m', '50Mi'),
              securityContext: { privileged: false, capabilities: { add: ['NET_ADMIN', 'NET_RAW'] } },
              env: [fieldEnv('POD_NAME', 'metadata.name'), fieldEnv('POD_NAMESPACE', 'metadata.namespace'), { name: 'EVENT_QUEUE_DEPTH', value: '5000' }, { name: 'CONT_WHEN_CACHE_NOT_READY', value: 'false' }],
              volumeMounts: [mount('run', '/run/flannel'), mount('flannel-cfg', '/etc/kube-flannel/'), mount('xtables-lock', '/run/xtables.lock')],
            },
          ],
          volumes: [
            hostPath('run', '/run/flannel'),
            hostPath('cni-plugin', '/opt/cni/bin'),
            hostPath('cni', '/etc/cni/net.d'),
            { name: 'flannel-cfg', configMap: { name: 'kube-flannel-cfg' } },
            hostPath('xtables-lock', '/run/xtables.lock', 'FileOrCreate'),
          ],
        },
      },
    },
  };
}
