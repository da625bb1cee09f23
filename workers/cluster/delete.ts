// The delete operation (spec k8s-bootstrap §4.3, openstack-apis §3.2): every resource of the
// cluster, found in the ledger AND by tag or deterministic name (so what a crashed create made
// without recording it goes too), in reverse order of creation, 404 counting as done. Waits for
// load balancers and servers to be gone by re-queueing, never by sleeping. The application
// credential goes last, then the cluster row (DELETE_COMPLETE is the row disappearing).
import { ClusterEntity } from '../../src/db/entities/cluster.js';
import { isNotFound, OpenStackError } from '../../src/openstack/errors.js';
import type { NeutronClient } from '../../src/openstack/neutron.js';
import type { Cloud } from '../cloud.js';
import { Wait } from '../errors.js';
import { clusterTag, resourceName, type Role } from '../naming.js';
import type { OperationSpec, RunContext, Step } from '../runner.js';
import { settingsOf } from '../../src/kube/addons/framework.js';
import type { CinderCsiSettings } from '../../src/kube/addons/cinder-csi/index.js';
import { clusterSpec } from './context.js';
import { deleteDnsRecords } from './dns.js';
import { deleteExternalDnsRecords } from './external-dns.js';
import { deleteKmsKey } from './kms.js';
import { deleteShares } from './manila.js';
import { ours, type Named } from './ensure.js';
import { offered } from './services.js';

/** Types this delete knows; anything else in the ledger is logged and left (and stays recorded). */
const KNOWN = new Set(['loadbalancer', 'listener', 'pool', 'healthmonitor', 'floatingip', 'server', 'port', 'router', 'router_interface', 'subnet', 'network', 'security_group', 'server_group', 'recordset', 'secret']);
/** Octavia children: gone with their load balancer (cascade). */
const LB_CHILDREN = ['listener', 'pool', 'healthmonitor'];

/** The cluster's clients, or undefined when its credential is already gone (a resumed delete). */
function cloudOf(ctx: RunContext): Cloud | undefined {
  return ctx.cluster.app_cred_id ? ctx.cloud() : undefined;
}


/** Ledger ids of `type` plus the cloud's own finds (by tag or name, marked as ours), without repeats. */
async function targets(ctx: RunContext, type: string, found: Named[]): Promise<string[]> {
  const ids = new Set((await ctx.ledger.live(type)).map((r) => r.cloud_id));
  for (const r of found) if (ours(r, ctx.cluster.uuid)) ids.add(r.id);
  return [...ids];
}

/** Lists by the cluster tag and by each deterministic name. */
async function neutronFinds<T extends Named>(list: (filters: Record<string, string>) => Promise<T[]>, tag: string, names: string[]): Promise<T[]> {
  const all = [...(await list({ tags: tag }))];
  for (const name of names) all.push(...(await list({ name })));
  return all;
}

const names = (ctx: RunContext, ...roles: Role[]) => roles.map((r) => resourceName(ctx.cluster, r));

const loadBalancers: Step = {
  name: 'load_balancers',
  async run(ctx) {
    const cloud = cloudOf(ctx);
    if (!cloud) return;
    const o = await offered(() => cloud.octavia());
    if (!o) return;
    const uuid = ctx.cluster.uuid;
    const all = await o.listLoadBalancers();
    // Ours by tag, and those OCCM made for the cluster's Services and Ingresses (§4.2: description).
    const occm = new RegExp(`^Kubernetes .+ from cluster ${uuid}$`);
    const found = all.filter((lb) => (lb.tags ?? []).includes(clusterTag(uuid)) || occm.test(lb.description ?? ''));
    const ids = new Set([...(await ctx.ledger.live('loadbalancer')).map((r) => r.cloud_id), ...found.map((lb) => lb.id)]);
    let pending = 0;
    for (const id of ids) {
      const status = await o.provisioningStatus(id);
      if (status === 'DELETED') {
        await ctx.ledger.markDeleted('load-balancer', 'loadbalancer', id);
        continue;
      }
      pending++;
      if (status === 'ACTIVE' || status === 'ERROR') await o.deleteLoadBalancer(id, { cascade: true });
    }
    if (pending > 0) throw new Wait(ctx.pollMs, `${pending} load balancer(s) being deleted`);
    for (const type of LB_CHILDREN) for (const r of await ctx.ledger.live(type)) await ctx.ledger.markDeleted(r.service, type, r.cloud_id);
  },
};

const floatingIps: Step = {
  name: 'floating_ips',
  async run(ctx) {
    const cloud = cloudOf(ctx);
    if (!cloud) return;
    const n = await cloud.neutron();
    const uuid = ctx.cluster.uuid;
    const tagged = await n.floatingIps.list({ tags: clusterTag(uuid) } as never);
    // OCCM's and the ingress controller's floating IPs for the cluster's Services (§4.1: description).
    const occm = new RegExp(`^Floating IP for Kubernetes .+ from cluster ${uuid}$`);
    const fromOccm = (await n.floatingIps.list()).filter((f) => occm.test(f.description ?? '')).map((f) => ({ ...f, description: uuid }));
    for (const id of await targets(ctx, 'floatingip', [...tagged, ...fromOccm])) {
      await n.floatingIps.delete(id);
      await ctx.ledger.markDeleted('network', 'floatingip', id);
    }
  },
};

const servers: Step = {
  name: 'servers',
  async run(ctx) {
    const cloud = cloudOf(ctx);
    if (!cloud) return;
    const nova = await offered(() => cloud.servers());
    if (!nova) return;
    const found = await nova.list({ tags: [clusterTag(ctx.cluster.uuid)] });
    const ids = new Set([...(await ctx.ledger.live('server')).map((r) => r.cloud_id), ...found.map((s) => s.id)]);
    let pending = 0;
    for (const id of ids) {
      try {
        await nova.get(id);
        pending++;
        await nova.delete(id);
      } catch (e) {
        // 409: already being deleted (or in a state that will pass); look again next time.
        if (e instanceof OpenStackError && e.kind === 'conflict') continue;
        if (!isNotFound(e)) throw e;
        await ctx.ledger.markDeleted('compute', 'server', id);
      }
    }
    if (pending > 0) throw new Wait(ctx.pollMs, `${pending} server(s) being deleted`);
  },
};

const ports: Step = {
  name: 'ports',
  async run(ctx) {
    const cloud = cloudOf(ctx);
    if (!cloud) return;
    const n = await cloud.neutron();
    const found = (await n.ports.list({ tags: [clusterTag(ctx.cluster.uuid)] } as never)).filter((p) => !(p.device_owner ?? '').startsWith('network:router'));
    for (const id of await targets(ctx, 'port', found)) {
      await n.ports.delete(id);
      await ctx.ledger.markDeleted('network', 'port', id);
    }
  },
};

const routers: Step = {
  name: 'routers',
  async run(ctx) {
    const cloud = cloudOf(ctx);
    if (!cloud) return;
    const n = await cloud.neutron();
    const tag = clusterTag(ctx.cluster.uuid);
    const found = await neutronFinds((f) => n.routers.list(f as never), tag, names(ctx, 'router'));
    for (const id of await targets(ctx, 'router', found)) {
      await deleteRouter(n, id);
      await ctx.ledger.markDeleted('network', 'router', id);
    }
    for (const r of await ctx.ledger.live('router_interface')) await ctx.ledger.markDeleted('network', 'router_interface', r.cloud_id);
  },
};

/** Interfaces off, gateway cleared, router deleted; each 404 is done. */
async function deleteRouter(n: NeutronClient, id: string): Promise<void> {
  let router;
  try {
    router = await n.routers.get(id);
  } catch (e) {
    if (isNotFound(e)) return;
    throw e;
  }
  for (const p of await n.ports.list({ device_id: id })) {
    if (!(p.device_owner ?? '').startsWith('network:router_interface')) continue;
    try {
      await n.removeRouterInterface(id, { port_id: p.id });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
  if (router.external_gateway_info) await n.setRouterGateway(id, null);
  await n.routers.delete(id);
}

function neutronStep(name: string, type: string, resource: 'subnets' | 'networks', roles: Role[]): Step {
  return {
    name,
    async run(ctx) {
      const cloud = cloudOf(ctx);
      if (!cloud) return;
      const n = await cloud.neutron();
      const found = await neutronFinds((f) => n[resource].list(f as never) as Promise<Named[]>, clusterTag(ctx.cluster.uuid), names(ctx, ...roles));
      for (const id of await targets(ctx, type, found)) {
        await n[resource].delete(id);
        await ctx.ledger.markDeleted('network', type, id);
      }
    },
  };
}

/** The two groups name each other as remote groups (409 SecurityGroupInUse): those rules go first. */
const securityGroups: Step = {
  name: 'security_groups',
  async run(ctx) {
    const cloud = cloudOf(ctx);
    if (!cloud) return;
    const n = await cloud.neutron();
    const found = await neutronFinds((f) => n.securityGroups.list(f as never), clusterTag(ctx.cluster.uuid), names(ctx, 'secgroup-controlplane', 'secgroup-worker'));
    const ids = await targets(ctx, 'security_group', found);
    for (const id of ids) {
      for (const rule of await n.securityGroupRules.list({ remote_group_id: id } as never)) await n.securityGroupRules.delete(rule.id);
    }
    for (const id of ids) {
      await n.securityGroups.delete(id);
      await ctx.ledger.markDeleted('network', 'security_group', id);
    }
  },
};

const serverGroups: Step = {
  name: 'server_groups',
  async run(ctx) {
    const cloud = cloudOf(ctx);
    const rows = await ctx.ledger.live('server_group');
    if (!cloud || rows.length === 0) return;
    const nova = await cloud.novaResources();
    for (const r of rows) {
      await nova.deleteServerGroup(r.cloud_id);
      await ctx.ledger.markDeleted(r.service, 'server_group', r.cloud_id);
    }
  },
};

/**
 * Volumes the cluster's Cinder CSI made (metadata cinder.csi.openstack.org/cluster = uuid, §4.1):
 * kept by default and listed in the cluster's events (they hold user data); deleted when the
 * cluster asked for it (label cinder_csi_delete_volumes).
 */
const volumes: Step = {
  name: 'volumes',
  async run(ctx) {
    const cloud = cloudOf(ctx);
    if (!cloud) return;
    const cinder = await offered(() => cloud.cinder());
    if (!cinder) return;
    const found = await cinder.listVolumes({ metadata: { 'cinder.csi.openstack.org/cluster': ctx.cluster.uuid } });
    if (found.length === 0) return;
    // A spec that no longer parses (a template changed under the cluster) keeps them: they hold user data.
    const remove = await clusterSpec(ctx).then((s) => settingsOf<CinderCsiSettings>(s, 'cinderCsi').deleteVolumes, () => false);
    if (!remove) {
      // The events go with the cluster's row: the operator's log keeps the list too.
      ctx.log('volumes kept', { volumes: found.map((v) => v.id) });
      await ctx.event('volumes', 'VolumesKept', `Kept ${found.length} volume(s) made by the cluster's CSI: ${found.map((v) => v.id).join(', ')}.`, 'warning');
      return;
    }
    let pending = 0;
    for (const v of found) {
      if (v.status === 'deleting') {
        pending++;
        continue;
      }
      if (v.status === 'in-use' || v.status === 'attaching' || v.status === 'detaching') {
        pending++;
        continue;
      }
      await cinder.deleteVolume(v.id);
      pending++;
    }
    if (pending > 0) throw new Wait(ctx.pollMs, `${pending} volume(s) being deleted`);
  },
};

/** Last of the cloud: the credential everything above used, deleted by the service user. */
const credential: Step = {
  name: 'credential',
  async run(ctx) {
    for (const r of await ctx.ledger.live()) {
      if (!KNOWN.has(r.type)) ctx.log('ledger holds a resource this delete does not know; it is left and stays recorded', { type: r.type, id: r.cloud_id });
    }
    const c = ctx.cluster;
    if (!c.app_cred_id) return;
    await ctx.cloudFactory.deleteAppCredential(c.user_id, c.app_cred_id);
    ctx.cloudFactory.forget(c.uuid);
    await ctx.ds.getRepository(ClusterEntity).update({ uuid: c.uuid }, { app_cred_id: null, app_cred_secret: null, updated_at: new Date() });
    ctx.cluster = { ...c, app_cred_id: null, app_cred_secret: null };
  },
};

export const deleteOperation: OperationSpec = {
  kind: 'delete',
  overtakes: true,
  steps: [
    deleteDnsRecords,
    loadBalancers,
    floatingIps,
    servers,
    deleteExternalDnsRecords,
    deleteKmsKey,
    ports,
    routers,
    neutronStep('subnets', 'subnet', 'subnets', ['subnet']),
    neutronStep('networks', 'network', 'networks', ['network']),
    securityGroups,
    serverGroups,
    volumes,
    deleteShares,
    credential,
  ],
  /** DELETE_COMPLETE: the row goes (node groups, certificates, operations, events with it), and the walked ledger. */
  async finish(ctx) {
    await ctx.ds.transaction(async (em) => {
      await em.query('DELETE FROM cluster_resource WHERE cluster_id = $1 AND deleted_at IS NOT NULL', [ctx.cluster.uuid]);
      await em.query('DELETE FROM cluster WHERE uuid = $1', [ctx.cluster.uuid]);
    });
    ctx.log('cluster deleted');
    return { state: 'deleted' };
  },
};
