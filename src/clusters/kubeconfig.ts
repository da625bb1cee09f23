// The identity kubeconfig (issue 26 item 2): a kubeconfig whose user is client-go's exec plugin
// client-keystone-auth (kubernetes/cloud-provider-openstack), which presents the user's own Keystone token to the
// cluster's k8s-keystone-auth; what the user may do there is the keystone-auth policy's (label
// keystone_auth_policy), decided by the user's Keystone roles in the cluster's project. It holds no secret and
// no certificate (the cluster's CA certificate only), never expires itself, and ends working for a user whose
// roles go: readers may have it too. The caller's own project's clusters only: the token it presents is scoped there.
import { stringify } from 'yaml';
import type { DataSource } from 'typeorm';
import { bool } from '../cluster-spec/labels/types.js';
import type { ClusterRow } from '../db/entities/cluster.js';
import type { ClusterRepo } from '../db/repos/clusters.js';
import { errors } from '../domain/errors.js';
import { enforce } from '../domain/policy.js';
import type { AuthContext } from '../keystone/context.js';
import { findEndpoint } from '../openstack/catalog.js';
import { loadCaCert } from '../pki/index.js';
import { ownCluster } from './sign-certificate.js';

export interface KubeconfigDeps {
  db: DataSource;
  clusters: Pick<ClusterRepo, 'find'>;
  /** Keystone's URL as the service reaches it: the kubeconfig's when the caller's catalog has no public identity endpoint. */
  authUrl: string;
}

/** Whether the cluster runs k8s-keystone-auth (label keystone_auth_enabled, on by default; a bad value is the parser's refusal, read as on). */
export function runsKeystoneAuth(c: Pick<ClusterRow, 'labels'>): boolean {
  const v = c.labels.keystone_auth_enabled;
  if (v === undefined) return true;
  try {
    return bool.parse(v);
  } catch {
    return true;
  }
}

/** The kubeconfig document: the cluster (its API and CA), a user that runs client-keystone-auth, one context. */
export function identityKubeconfigYaml(c: Pick<ClusterRow, 'name' | 'api_address'>, caPem: string, who: { keystoneUrl: string; userName: string; userDomainName: string | null; projectName: string | null }): string {
  const name = c.name;
  const user = `${who.userName}@${name}`;
  const args = [
    `--keystone-url=${who.keystoneUrl}`,
    ...(who.userDomainName ? [`--domain-name=${who.userDomainName}`] : []),
    `--user-name=${who.userName}`,
    ...(who.projectName ? [`--project-name=${who.projectName}`] : []),
  ];
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server: c.api_address, 'certificate-authority-data': Buffer.from(`${caPem}\n`).toString('base64') } }],
    users: [
      {
        name: user,
        user: {
          exec: {
            apiVersion: 'client.authentication.k8s.io/v1beta1',
            command: 'client-keystone-auth',
            args,
            // The password is asked on a terminal; elsewhere the plugin reads the OS_* variables (an openrc, OS_CLOUD).
            interactiveMode: 'IfAvailable',
            provideClusterInfo: false,
            installHint: 'client-keystone-auth is the Keystone credential plugin of kubernetes/cloud-provider-openstack (its releases carry the binary).',
          },
        },
      },
    ],
    contexts: [{ name, context: { cluster: name, user } }],
    'current-context': name,
  });
}

/** The caller's identity kubeconfig for a cluster of their project. */
export async function identityKubeconfig(deps: KubeconfigDeps, ctx: AuthContext, ident: string): Promise<{ cluster: ClusterRow; kubeconfig: string }> {
  const cluster = await ownCluster(deps.clusters, ctx, ident, (id) => errors.notFound('Cluster', id));
  enforce(ctx, 'cluster:get', cluster);
  if (!runsKeystoneAuth(cluster)) throw errors.noKeystoneAuth(cluster.name);
  if (!cluster.api_address) throw errors.clusterApiAddressUnavailable();
  const ca = await loadCaCert(deps.db, cluster.uuid, 'kubernetes');
  if (ca === null) throw errors.caNotFound(cluster.uuid);
  const keystoneUrl = findEndpoint(ctx.catalog, 'identity', { interface: 'public' }) ?? deps.authUrl;
  return { cluster, kubeconfig: identityKubeconfigYaml(cluster, ca, { keystoneUrl, userName: ctx.userName, userDomainName: ctx.userDomainName ?? null, projectName: ctx.projectName }) };
}
