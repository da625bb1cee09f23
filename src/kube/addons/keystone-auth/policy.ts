// The default k8s-keystone-auth authorization policy (CPO policy format version 2), scoped to the cluster's project.
//
//   Keystone role in the cluster's project | what the user may do in the cluster
//   admin                                  | everything (the equivalent of cluster-admin)
//   member                                 | every verb on every resource outside kube-system, except ClusterRoles
//                                          | and ClusterRoleBindings (so a member cannot bind itself cluster-wide)
//   reader                                 | get/list/watch on everything except Secrets
//
// Users of other projects authenticate (their project id becomes a group, so RBAC bindings on it still work)
// but get nothing from this policy. Operators change it by editing ConfigMap kube-system/k8s-keystone-auth-policy;
// the apiserver caches decisions for up to 5 minutes. Service accounts and certificate users never reach the
// webhook for authorization: kube-apiserver asks Node and RBAC first (spec k8s-bootstrap §3).

/** Discovery and health endpoints every authorised user needs (kubectl fetches them before anything else). */
const DISCOVERY = ['/api', '/api/*', '/apis', '/apis/*', '/version', '/healthz', '/livez', '/readyz'];

export interface PolicyRule {
  users: { projects: string[]; roles: string[] };
  resource_permissions: Record<string, string[]>;
  nonresource_permissions: Record<string, string[]>;
}

export function defaultPolicy(projectId: string): PolicyRule[] {
  const users = (role: string) => ({ projects: [projectId], roles: [role] });
  const discovery = (verbs: string[]) => Object.fromEntries(DISCOVERY.map((p) => [p, verbs]));
  return [
    {
      users: users('admin'),
      resource_permissions: { '*/*': ['*'] },
      nonresource_permissions: { ...discovery(['*']), '/metrics': ['get'], '/logs': ['get'], '/logs/*': ['get'] },
    },
    {
      users: users('member'),
      resource_permissions: { "!kube-system/!['clusterroles', 'clusterrolebindings']": ['*'] },
      nonresource_permissions: discovery(['get']),
    },
    {
      users: users('reader'),
      resource_permissions: { "*/!['secrets']": ['get', 'list', 'watch'] },
      nonresource_permissions: discovery(['get']),
    },
  ];
}
