// Where a cluster's API stays put. With a load balancer it is the VIP (and its floating IP); without one, the
// control plane's floating IP when the cluster has one: kubeadm's controlPlaneEndpoint and the API certificate
// name it, a new control plane joins through it, and it moves to the new one when the old one leaves, so an
// upgrade or a CA rotation keeps the address. Without either, the API is the control plane's own fixed address,
// which no replacement can keep: such a cluster's control plane is never replaced, and the API says so at the
// request (never after a 202).
import type { ClusterSpec } from './types.js';

/** Why the control plane of a cluster of `spec` cannot be replaced without changing its API address; null when it can. */
export function controlPlaneFixed(spec: Pick<ClusterSpec, 'apiServer'>): string | null {
  if (spec.apiServer.loadBalancer || spec.apiServer.floatingIp) return null;
  return 'the cluster has neither an API load balancer (master_lb_enabled) nor a floating IP (floating_ip_enabled, master_lb_floating_ip_enabled), so its API is its control plane\'s own address, which a new control plane cannot keep';
}

/** Whether the API endpoint is the control plane's floating IP (no load balancer): it moves with the control plane. */
export const apiOnControlPlaneFip = (spec: Pick<ClusterSpec, 'apiServer'>): boolean => spec.apiServer.loadBalancer === null && spec.apiServer.floatingIp;
