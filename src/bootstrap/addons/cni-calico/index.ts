// Add-on `cni-calico` (network_driver=calico), installed through the tigera-operator plus an Installation CR.
// Why the operator rather than calico.yaml: the manifest install needs ~20 large projectcalico.org CRDs rendered by
// us and kept in step with each Calico release; the operator (-manage-crds=true) installs exactly the CRDs of its
// own release and then deploys calico-node, calico-kube-controllers and typha from the Installation below.
// Apply order inside this add-on: operator objects first; the Installation only once the operator has registered
// the installations.operator.tigera.io CRD (the worker waits for it to be Established).

import { label, oneOf } from '../../../cluster-spec/labels/types.js';
import type { CalicoIpip, ClusterSpec } from '../../../cluster-spec/types.js';
import { defineAddon, ORDER, settingsOf, type K8sObject } from '../framework.js';
import { meta } from '../k8s.js';
import { operatorObjects } from './operator.js';

/** Calico releases this service can install → the tigera-operator release that ships each. */
export const CALICO_RELEASES: Readonly<Record<string, string>> = { 'v3.31.3': 'v1.40.3' };

export interface CalicoSettings {
  calicoVersion: string;
  operatorImage: string;
  /** Installation.spec.registry/imagePath for a container_infra_prefix mirror; null = upstream registries. */
  mirror: { registry: string; imagePath: string } | null;
}

const ENCAPSULATION: Record<CalicoIpip, string> = { Always: 'IPIP', CrossSubnet: 'IPIPCrossSubnet', Never: 'None', Off: 'None' };

export const calicoAddon = defineAddon({
  key: 'cniCalico',
  kind: 'addon',
  name: 'cni-calico',
  order: ORDER.cni,
  labels: {
    calico_tag: label(oneOf(Object.keys(CALICO_RELEASES)), 'Calico release; selects the tigera-operator release that installs it. Default pinned per Kubernetes minor.', { ignored: 'unless network_driver=calico' }),
  },
  resolve(l, ctx): CalicoSettings | null {
    const driver = ctx.spec.network!.driver;
    if (driver !== 'calico') {
      if ('calico_tag' in l) ctx.ignore('calico_tag', `with network_driver=${driver}`);
      return null;
    }
    const k = ctx.spec.kubernetes!;
    const calicoVersion = l.calico_tag ?? k.components.calico;
    const operator = l.calico_tag === undefined ? k.components.tigeraOperator : CALICO_RELEASES[l.calico_tag]!;
    const prefix = k.imageRepository;
    const slash = prefix.indexOf('/');
    return {
      calicoVersion,
      operatorImage: `${prefix || 'quay.io/tigera'}/operator:${operator}`,
      mirror: prefix === '' ? null : { registry: `${slash < 0 ? prefix : prefix.slice(0, slash)}/`, imagePath: slash < 0 ? '' : prefix.slice(slash + 1) },
    };
  },
  enabled: (spec) => spec.network.driver === 'calico',
  render(spec): K8sObject[] {
    const s = settingsOf<CalicoSettings>(spec, 'cniCalico');
    return [...operatorObjects(s.operatorImage), installation(spec, s)];
  },
});

function installation(spec: ClusterSpec, s: CalicoSettings): K8sObject {
  const mode = spec.network.calico!.ipipMode;
  return {
    apiVersion: 'operator.tigera.io/v1',
    kind: 'Installation',
    metadata: meta('default'),
    spec: {
      variant: 'Calico',
      ...(s.mirror ? { registry: s.mirror.registry, ...(s.mirror.imagePath ? { imagePath: s.mirror.imagePath } : {}) } : {}),
      cni: { type: 'Calico', ipam: { type: 'Calico' } },
      calicoNetwork: {
        bgp: 'Enabled',
        ipPools: [
          {
            name: 'default-ipv4-ippool',
            cidr: spec.network.podCidr,
            blockSize: 26,
            encapsulation: ENCAPSULATION[mode],
            natOutgoing: 'Enabled',
            nodeSelector: 'all()',
          },
        ],
        nodeAddressAutodetectionV4: { kubernetes: 'NodeInternalIP' },
      },
      controlPlaneTolerations: [{ key: 'node.cloudprovider.kubernetes.io/uninitialized', operator: 'Exists', effect: 'NoSchedule' }],
    },
  };
}
