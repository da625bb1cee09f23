// Conditions the workers write while the cloud is in trouble and they keep at it: a call retrying after an
// error, a server in ERROR booted again, a load balancer Octavia leaves PENDING_*, a node that never joined.
// The cluster page shows each as a step in trouble (its own words, the worker's message), as it shows a retry.

/** The words of a step in trouble, by its condition's reason; undefined when the reason is no trouble. */
export const TROUBLE: Record<string, string> = {
  CloudErrorRetrying: 'Retrying after a cloud error',
  ReplacingServer: 'A server is in ERROR: booting it again',
  LoadBalancerPending: 'The load balancer is stuck in Octavia',
  LoadBalancerRebuilding: 'The load balancer is stuck: rebuilding its parts',
  NodeBootstrapFailed: 'A node never joined: its bootstrap failed',
  UserDataNotRead: 'A node never joined: it did not read its user-data',
};

export const troubleOf = (reason: string): string | undefined => TROUBLE[reason];
