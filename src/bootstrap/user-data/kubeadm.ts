// kubeadm v1beta4 documents (InitConfiguration, ClusterConfiguration, JoinConfiguration, KubeletConfiguration).

import { apiServerExtensions } from '../addons/framework.js';
import { addons } from '../addons/index.js';
import { kmsApiServer } from '../../features/kms/render.js';
import { caCertHash } from '../join.js';
import type { ClusterSpec } from '../../cluster-spec/types.js';
import type { ApiEndpoint, UserDataInput } from './inputs.js';

export const KUBEADM_API = 'kubeadm.k8s.io/v1beta4';
/** Replaced on the VM with the Nova instance UUID (cloud-init query v1.instance_id). */
export const INSTANCE_ID_PLACEHOLDER = '__INSTANCE_ID__';
const CRI_SOCKET = 'unix:///run/containerd/containerd.sock';

type Arg = { name: string; value: string };
const arg = (name: string, value: string): Arg => ({ name, value });

export function endpointHostPort(spec: ClusterSpec, ep: ApiEndpoint): string {
  return `${ep.address}:${spec.apiServer.port}`;
}

export function certSans(ep: ApiEndpoint): string[] {
  return [...new Set([ep.address, ...(ep.extraSans ?? [])])];
}

/** Where kubelet and kube-controller-manager look for FlexVolume drivers: under /var, writable on every supported image (Fedora CoreOS' /usr is read-only). */
export const VOLUME_PLUGIN_DIR = '/var/lib/kubelet/volumeplugins';
const CONTROL_PLANE_TAINT = { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' };

function nodeRegistration(spec: ClusterSpec, input: UserDataInput): Record<string, unknown> {
  const kubeletExtraArgs: Arg[] = [
    arg('cloud-provider', 'external'),
    arg('provider-id', `openstack:///${INSTANCE_ID_PLACEHOLDER}`),
  ];
  const labels = Object.entries(input.nodeLabels ?? {});
  if (labels.length > 0) kubeletExtraArgs.push(arg('node-labels', labels.map(([k, v]) => `${k}=${v}`).join(',')));
  const extra = (input.nodeTaints ?? []).map((t) => ({ key: t.key, ...(t.value ? { value: t.value } : {}), effect: t.effect }));
  // Given taints replace kubeadm's defaults: a control plane keeps its own.
  const taints = extra.length === 0 ? undefined : input.role === 'worker' ? extra : [CONTROL_PLANE_TAINT, ...extra];
  return { name: input.nodeName, criSocket: CRI_SOCKET, kubeletExtraArgs, ...(taints ? { taints } : {}) };
}

export function pauseImage(spec: ClusterSpec): string {
  const repo = spec.kubernetes.imageRepository || 'registry.k8s.io';
  return `${repo}/pause:${spec.kubernetes.components.pause}`;
}

function clusterConfiguration(spec: ClusterSpec, ep: ApiEndpoint): Record<string, unknown> {
  const controllerManagerArgs: Arg[] = [arg('cloud-provider', 'external'), arg('cluster-name', spec.cluster.uuid), arg('flex-volume-plugin-dir', VOLUME_PLUGIN_DIR)];
  if (spec.network.flannel && spec.network.flannel.subnetLen !== 24) {
    controllerManagerArgs.push(arg('node-cidr-mask-size', String(spec.network.flannel.subnetLen)));
  }
  return {
    apiVersion: KUBEADM_API,
    kind: 'ClusterConfiguration',
    clusterName: spec.cluster.shortName,
    kubernetesVersion: spec.kubernetes.version,
    controlPlaneEndpoint: endpointHostPort(spec, ep),
    ...(spec.kubernetes.imageRepository ? { imageRepository: spec.kubernetes.imageRepository } : {}),
    networking: {
      podSubnet: spec.network.podCidr,
      serviceSubnet: spec.network.serviceCidr,
      dnsDomain: spec.network.clusterDomain,
    },
    apiServer: apiServer(spec, ep),
    controllerManager: { extraArgs: controllerManagerArgs },
  };
}

/** certSANs plus whatever enabled add-ons contribute (flags, authorizers, mounted config files), and Barbican KMS. */
function apiServer(spec: ClusterSpec, ep: ApiEndpoint): Record<string, unknown> {
  const ext = apiServerExtensions(addons(), spec);
  const kms = spec.kms.enabled ? kmsApiServer() : { extraArgs: [], volumes: [] };
  const extraArgs = [...ext.extraArgs, ...kms.extraArgs];
  const volumes = [...ext.volumes, ...kms.volumes];
  return {
    certSANs: certSans(ep),
    ...(extraArgs.length ? { extraArgs } : {}),
    ...(volumes.length ? { extraVolumes: volumes } : {}),
  };
}

function kubeletConfiguration(spec: ClusterSpec): Record<string, unknown> {
  return {
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    cgroupDriver: spec.kubernetes.cgroupDriver,
    clusterDNS: [spec.network.dnsServiceIp],
    clusterDomain: spec.network.clusterDomain,
    volumePluginDir: VOLUME_PLUGIN_DIR,
  };
}

function discovery(spec: ClusterSpec, input: UserDataInput, caCert: string): Record<string, unknown> {
  return {
    bootstrapToken: {
      apiServerEndpoint: endpointHostPort(spec, input.endpoint),
      token: input.bootstrapToken,
      caCertHashes: [caCertHash(caCert), ...(input.trustedCaCerts ?? []).map(caCertHash)],
    },
  };
}

/** The kubeadm documents for one node, in file order. */
export function kubeadmDocuments(spec: ClusterSpec, input: UserDataInput): Record<string, unknown>[] {
  switch (input.role) {
    case 'init':
      return [
        {
          apiVersion: KUBEADM_API,
          kind: 'InitConfiguration',
          bootstrapTokens: [
            {
              token: input.bootstrapToken,
              description: 'magnum-ts: joins of the initial nodes',
              ttl: '2h0m0s',
              usages: ['signing', 'authentication'],
              groups: ['system:bootstrappers:kubeadm:default-node-token'],
            },
          ],
          localAPIEndpoint: { bindPort: spec.apiServer.port },
          nodeRegistration: nodeRegistration(spec, input),
        },
        clusterConfiguration(spec, input.endpoint),
        kubeletConfiguration(spec),
      ];
    case 'control-plane':
      return [
        {
          apiVersion: KUBEADM_API,
          kind: 'JoinConfiguration',
          discovery: discovery(spec, input, input.pki.ca.cert),
          nodeRegistration: nodeRegistration(spec, input),
          controlPlane: { localAPIEndpoint: { bindPort: spec.apiServer.port } },
        },
      ];
    case 'worker':
      return [
        {
          apiVersion: KUBEADM_API,
          kind: 'JoinConfiguration',
          discovery: discovery(spec, input, input.caCert),
          nodeRegistration: nodeRegistration(spec, input),
        },
      ];
  }
}
