// A settled cluster written straight into the database: its template, the cluster row, optionally
// the two default node groups, and its PKI (keys sealed as the API stores them). For suites that
// need a cluster without going through the cluster API and the workers.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { ClusterEntity, type ClusterRow } from '../../src/db/entities/cluster.js';
import { ClusterTemplateEntity, type ClusterTemplateRow } from '../../src/db/entities/cluster-template.js';
import { NodeGroupEntity, type NodeGroupRow } from '../../src/db/entities/nodegroup.js';
import { CONDITION_TYPES, type Conditions } from '../../src/domain/cluster-status.js';
import { generateClusterPki, storeClusterPki, type ControlPlanePki } from '../../src/pki/index.js';

export interface InsertClusterOptions {
  /** Keystone ids of the creating user and of the cluster's project. */
  user: string;
  project: string;
  /** Attributes of the template made for the cluster (e.g. `{ tls_disabled: true }`). */
  template?: Partial<ClusterTemplateRow>;
  /** Default CREATE_COMPLETE, every condition True. */
  status?: string;
  name?: string;
  /** Also insert default-master (1 node) and default-worker (1 node). */
  nodegroups?: boolean;
  /** Default true: generate and store the CAs and the service-account key. */
  pki?: boolean;
}

export interface InsertedCluster {
  cluster: ClusterRow;
  template: ClusterTemplateRow;
  pki: ControlPlanePki | undefined;
}

const settled = (since: string): Conditions =>
  Object.fromEntries(CONDITION_TYPES.filter((c) => c !== 'health').map((c) => [c, { status: 'True', reason: 'Ready', message: 'ready', since }]));

const templateRow = (o: InsertClusterOptions, now: Date): Omit<ClusterTemplateRow, 'id'> => ({
  uuid: randomUUID(), name: `tpl-${randomUUID().slice(0, 8)}`, project_id: o.project, user_id: o.user,
  coe: 'kubernetes', image_id: 'ubuntu-24.04', flavor_id: 'm1.small', master_flavor_id: 'm1.medium', keypair_id: null,
  dns_nameserver: null, external_network_id: 'public', fixed_network: null, fixed_subnet: null, network_driver: 'flannel',
  volume_driver: null, apiserver_port: null, docker_volume_size: null, docker_storage_driver: null, cluster_distro: 'ubuntu',
  http_proxy: null, https_proxy: null, no_proxy: null, insecure_registry: null, registry_enabled: false, tls_disabled: false,
  public: false, master_lb_enabled: false, floating_ip_enabled: true, hidden: false, server_type: 'vm',
  labels: { kube_tag: 'v1.35.2' }, tags: null, created_at: now, updated_at: null,
  ...o.template,
});

const clusterRow = (o: InsertClusterOptions, t: ClusterTemplateRow, now: Date): Omit<ClusterRow, 'id'> => ({
  uuid: randomUUID(), name: o.name ?? `c-${randomUUID().slice(0, 8)}`, project_id: o.project, user_id: o.user,
  cluster_template_id: t.uuid, keypair: null, docker_volume_size: null, labels: { ...t.labels },
  master_flavor_id: t.master_flavor_id, flavor_id: t.flavor_id, create_timeout: 60, discovery_url: null, stack_id: null,
  status: o.status ?? 'CREATE_COMPLETE', status_reason: null, health_status: null, health_status_reason: null,
  health_checked_at: null, unhealthy_since: {}, api_address: 'https://203.0.113.10:6443', coe_version: 'v1.35.2', container_version: null,
  fixed_network: null, fixed_subnet: null, floating_ip_enabled: t.floating_ip_enabled, master_lb_enabled: t.master_lb_enabled,
  conditions: settled(now.toISOString()), app_cred_id: null, app_cred_secret: null, app_cred_user_id: null, retired_app_creds: [],
  hibernation: 'awake', hibernated_at: null, hibernation_schedule: null, schedule_fired: {}, maintenance: null, maintenance_claimed: null, maintenance_last: null, created_at: now, updated_at: null,
});

const nodegroup = (c: ClusterRow, t: ClusterTemplateRow, role: 'master' | 'worker'): Omit<NodeGroupRow, 'id'> => ({
  uuid: randomUUID(), name: `default-${role}`, cluster_id: c.uuid, project_id: c.project_id, docker_volume_size: null,
  labels: { ...c.labels }, flavor_id: role === 'master' ? c.master_flavor_id : c.flavor_id, image_id: t.image_id,
  node_addresses: [], node_count: 1, role, min_node_count: role === 'master' ? 1 : 0, max_node_count: null, is_default: true,
  stack_id: null, status: c.status, status_reason: null, version: c.coe_version, node_labels: null, node_taints: null,
  created_at: c.created_at, updated_at: null,
});

export async function insertCluster(app: FastifyInstance, opts: InsertClusterOptions): Promise<InsertedCluster> {
  const { db, secretBox } = app.services;
  const now = new Date();
  return db.transaction(async (em) => {
    const template = await em.getRepository(ClusterTemplateEntity).save(templateRow(opts, now) as ClusterTemplateRow);
    const cluster = await em.getRepository(ClusterEntity).save(clusterRow(opts, template, now) as ClusterRow);
    if (opts.nodegroups) {
      await em.getRepository(NodeGroupEntity).insert([nodegroup(cluster, template, 'master'), nodegroup(cluster, template, 'worker')] as never);
    }
    let pki: ControlPlanePki | undefined;
    if (opts.pki !== false) {
      pki = await generateClusterPki(cluster);
      await storeClusterPki(em, secretBox, cluster.uuid, pki);
    }
    return { cluster, template, pki };
  });
}
