// The roles of a cluster's application credential. The credential lives in the cluster (the
// cloud-config Secret, control planes' disks) and the worker acts through it, so it carries only what
// its consumers need of the project's services, never the creator's other roles (admin above all):
// OCCM (Octavia load balancers, Neutron ports, floating IPs and security groups, Nova servers), the
// Cinder and Manila CSI drivers (volumes and attachments, shares and their access rules), ExternalDNS
// (Designate recordsets), the Octavia ingress controller and the Barbican KMS plugin (its key), and the
// worker (every resource of the cluster). All of these write, so `reader` alone is not enough: they
// need `member` (OpenStack's default policies), plus the legacy per-service roles some clouds still
// require for writes (Octavia's `load-balancer_member`, Barbican's `creator`) when the creator has them.

/** Roles the credential may carry, in this order; each only when the creating token has it. */
export const CLUSTER_CREDENTIAL_ROLES = ['member', 'reader', 'load-balancer_member', 'creator'] as const;

/** The roles to give the credential of a cluster made by a token with `tokenRoles`; empty when it has no usable one. */
export function clusterCredentialRoles(tokenRoles: readonly string[]): string[] {
  const held = new Set(tokenRoles.map((r) => r.toLowerCase()));
  // Without member the credential could not write anything: reader alone does not count.
  if (!held.has('member')) return [];
  return CLUSTER_CREDENTIAL_ROLES.filter((r) => held.has(r));
}
