// Inputs for rendering one node's user-data (besides the spec).

import type { NodeImage } from '../../cluster-spec/image.js';
import type { NodeTaint } from '../../cluster-spec/node-labels.js';
import type { ControlPlanePki } from '../join.js';
import type { NodeVolume } from '../../cluster-spec/types.js';

export interface ApiEndpoint {
  /** kubeadm controlPlaneEndpoint host: the LB VIP (or floating IP, or the single CP's address). */
  address: string;
  /** Further names/addresses clients use (floating IP, DNS names); all go into the apiserver certSANs. */
  extraSans?: string[];
}

/**
 * Where the node fetches its secrets at first boot (src/bootstrap/user-data/material.ts): this service's URL as
 * the node reaches it, the one-time token (single use, bound to the server, short-lived), and the CA the URL's
 * certificate must chain to (pinned when given).
 */
export interface MaterialSource {
  url: string;
  token: string;
  caCert?: string;
}

interface Common {
  /** Nova server name == Kubernetes node name (OCCM matches them). */
  nodeName: string;
  endpoint: ApiEndpoint;
  /** `[a-z0-9]{6}.[a-z0-9]{16}`; listed in InitConfiguration.bootstrapTokens, used by every join. */
  bootstrapToken: string;
  /** Further CAs a joining node accepts for the cluster (the previous CA during a CA rotation). */
  trustedCaCerts?: string[];
  /** The image the node boots (the node image contract decides the user-data format); default: Ubuntu that says no kube_version. */
  image?: NodeImage;
  /** Labels the kubelet registers the Node with (its group's identity and node_labels); checked by nodeLabelProblem. */
  nodeLabels?: Record<string, string>;
  /** Taints the Node registers with (kubeadm nodeRegistration.taints; a control plane keeps kubeadm's own). */
  nodeTaints?: NodeTaint[];
  /** The node's container runtime volume (its group's docker_volume_size; null: none); default: the spec's runtimeVolume. */
  runtimeVolume?: NodeVolume | null;
  /** Where its secrets come from: none of them is in its user-data. */
  material: MaterialSource;
}

/** A control plane's Barbican KMS plugin material (spec.kms.enabled): its cloud.conf and the Keystone CA it names. */
export interface KmsInput {
  cloudConf: string;
  caCert?: string;
}

export type UserDataInput =
  | (Common & { role: 'init'; pki: ControlPlanePki; kms?: KmsInput })
  | (Common & { role: 'control-plane'; pki: ControlPlanePki; kms?: KmsInput })
  | (Common & { role: 'worker'; caCert: string });

export type NodeRole = UserDataInput['role'];
export const NODE_ROLES: readonly NodeRole[] = ['init', 'control-plane', 'worker'];

/** Nova's limit on base64-encoded user-data. */
export const NOVA_USER_DATA_LIMIT = 65535;
