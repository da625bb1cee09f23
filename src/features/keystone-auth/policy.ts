// k8s-keystone-auth authorization policies (CPO policy format version 2), scoped to the cluster's project.
// Label `keystone_auth_policy` picks one; the default is Magnum's.
//
//   magnum (default)  Magnum's built-in default, which magnum-cluster-api ships too: a `member` of the
//                     cluster's project may list pods, services and deployments in namespace `default`;
//                     and ours: a `reader` gets view (get/list/watch on everything but Secrets), so a
//                     reader's identity kubeconfig reads the cluster (Keystone's member and admin imply
//                     reader: they get view too). Magnum's
//                     policy also names `pvc`, which is no resource name, so it never matched anything
//                     and is left out. Sources: magnum/drivers/heat/k8s_fedora_template_def.py
//                     (_get_keystone_auth_default_policy, before the Heat drivers were removed) and
//                     magnum_cluster_api/utils.py (get_keystone_auth_default_policy).
//   project-roles     wide, for clouds that want Keystone roles to be Kubernetes roles:
//                       admin   everything (the equivalent of cluster-admin)
//                       member  every verb on every namespaced resource outside kube-system, except
//                               ClusterRoles and ClusterRoleBindings
//                       reader  get/list/watch on everything except Secrets
//                     Beware: a member may then create RoleBindings and privileged pods in its namespaces,
//                     which on most clusters reaches cluster-admin.
//   none              no grants: access only through RBAC bindings on the project's group.
//
// Users of other projects authenticate (their project id becomes a group, so RBAC bindings on it still work)
// but get nothing from any preset. Service accounts and certificate users never reach the webhook for
// authorization: kube-apiserver asks Node and RBAC first (spec k8s-bootstrap §3), and RBAC's defaults give
// every authenticated user discovery (system:discovery, system:basic-user).

export const POLICY_PRESETS = ['magnum', 'project-roles', 'none'] as const;
export type PolicyPreset = (typeof POLICY_PRESETS)[number];

/** Discovery and health endpoints (kubectl fetches them before anything else). */
const DISCOVERY = ['/api', '/api/*', '/apis', '/apis/*', '/version', '/healthz', '/livez', '/readyz'];

export interface PolicyRule {
  users: { projects: string[]; roles: string[] };
  resource_permissions: Record<string, string[]>;
  nonresource_permissions: Record<string, string[]>;
}

/** What a reader may do: get, list and watch everything but Secrets (Kubernetes' `view`). */
const READER_VIEW = (users: PolicyRule['users'], nonresource: Record<string, string[]>): PolicyRule => ({
  users,
  resource_permissions: { "*/!['secrets']": ['get', 'list', 'watch'] },
  nonresource_permissions: nonresource,
});

export function policyFor(preset: PolicyPreset, projectId: string): PolicyRule[] {
  const users = (role: string) => ({ projects: [projectId], roles: [role] });
  const discovery = (verbs: string[]) => Object.fromEntries(DISCOVERY.map((p) => [p, verbs]));
  switch (preset) {
    case 'magnum':
      return [
        { users: users('member'), resource_permissions: { "default/['pods', 'services', 'deployments']": ['list'] }, nonresource_permissions: {} },
        // Readers of the project get view (issue 26 item 2): their identity kubeconfig reads the cluster, not its Secrets.
        READER_VIEW(users('reader'), discovery(['get'])),
      ];
    case 'project-roles':
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
        READER_VIEW(users('reader'), discovery(['get'])),
      ];
    case 'none':
      return [];
  }
}
