// How a cluster's cloud resources are marked as its own, read by the workers (which write the marks) and by
// the API (which reads a cluster's servers as Nova has them): the tag every resource carries and the
// metadata keys of its servers.

/** Neutron/Octavia/Nova tag carried by every resource of the cluster. */
export const clusterTag = (uuid: string): string => `magnum-cluster=${uuid.toLowerCase()}`;

/** Server metadata keys the worker writes (observed state of each node). */
export const META = {
  cluster: 'magnum_cluster',
  nodegroup: 'magnum_nodegroup',
  role: 'magnum_role',
  version: 'magnum_kube_version',
  caGeneration: 'magnum_ca_generation',
  /** The node's index in its group: its zone follows from it (src/cluster-spec/zones.ts). */
  index: 'magnum_node_index',
} as const;
