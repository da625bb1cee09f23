// The wildcard record for the cluster's services (OpenStack's Kubernetes starter kit: "a DNS record
// for the control plane, and a wildcard DNS record for any services running in the cluster"): with
// the API's zone (label api_dns_zone) and ingress_controller=octavia, the create reserves a floating
// IP for the ingress (recorded as `ingress`, tagged) and publishes `*.<API name>` A <that address>
// in the zone. octavia-ingress-controller makes one load balancer per Ingress; the Ingress that
// serves the cluster's names takes the address with its annotations
// octavia.ingress.kubernetes.io/floatingip (and keep-floatingip, so deleting the Ingress keeps it).
// The record and the address go with the cluster (purgeDnsRecords, purgeFloatingIps).
import { settingsOf } from '../../bootstrap/addons/framework.js';
import type { IngressSettings } from './addon.js';
import type { Recordset } from '../../openstack/designate.js';
import type { FloatingIp } from '../../openstack/neutron.js';
import { StepFailure } from '../../steps/errors.js';
import { clusterDescription, clusterTag } from '../../steps/naming.js';
import type { RunContext, Step } from '../../steps/step.js';
import { clusterNet, clusterSpec } from '../../steps/context.js';
import { deleteRecord, designate, recordId, recordsNamed, zoneOf, type ZoneUse } from '../../steps/designate.js';
import { ours, purge } from '../../steps/ensure.js';

export const INGRESS_FIP = 'ingress';
const TTL = 300;
const USE: ZoneUse = { label: 'api_dns_zone', condition: 'addons' };

/** The ingress's floating IP: recorded, else found by its description (a create never recorded), else a new one, unassociated. */
async function ingressAddress(ctx: RunContext): Promise<FloatingIp> {
  const n = await ctx.cloud().neutron();
  for (const row of await ctx.ledger.live('floatingip')) {
    if (row.name !== INGRESS_FIP) continue;
    const fip = await n.floatingIps.find(row.cloud_id);
    if (fip) return fip;
    await ctx.ledger.markDeleted('network', 'floatingip', row.cloud_id);
  }
  const description = `${clusterDescription(ctx.cluster.uuid)} ingress`;
  const record = (id: string) => ctx.ledger.record({ service: 'network', type: 'floatingip', cloudId: id, name: INGRESS_FIP, step: 'ingress_dns' });
  const found = (await n.floatingIps.list({ description })).find((f) => f.description === description);
  if (found) {
    await record(found.id);
    return found;
  }
  await ctx.checkpoint();
  const fip = await n.floatingIps.create({ floating_network_id: (await clusterNet(ctx)).externalNetworkId, description });
  await ctx.hooks.afterCreate?.('floatingip', fip.id);
  await record(fip.id);
  await n.addTag('floatingips', fip.id, clusterTag(ctx.cluster.uuid));
  return fip;
}

export const ensureIngressDnsRecord: Step = {
  name: 'ingress_dns_record',
  condition: 'addons',
  after: ['api_dns_record'],
  /** The services' wildcard record in the API's zone, and the floating IP it points at. */
  bill: ({ spec }) => (settingsOf<IngressSettings>(spec, 'ingress').wildcardDns ? { floatingip: 1, zone_recordsets: 1 } : {}),
  async run(ctx) {
    const want = settingsOf<IngressSettings>(await clusterSpec(ctx), 'ingress').wildcardDns;
    if (!want) return;
    const d = await designate(ctx, USE);
    const zoneId = await zoneOf(d, want.zone, USE);
    const address = (await ingressAddress(ctx)).floating_ip_address!;
    // Designate reads `*` in a name filter as a glob: only the exact name is this record.
    const existing: Recordset | undefined = (await d.listRecordsets(zoneId, { name: want.name, type: 'A' })).find((rs) => rs.name === want.name);
    if (existing?.id) {
      if (!ours({ id: existing.id, description: existing.description ?? null }, ctx.cluster.uuid)) {
        throw new StepFailure('DnsRecordConflict', `${want.name} already exists in zone ${want.zone} and is not this cluster's.`, 'addons');
      }
      await ctx.ledger.record({ service: 'dns', type: 'recordset', cloudId: recordId(zoneId, existing.id), name: want.name, step: 'ingress_dns_record' });
      return;
    }
    await ctx.checkpoint();
    const made = await d.createRecordset(zoneId, { name: want.name, type: 'A', records: [address], ttl: TTL, description: clusterDescription(ctx.cluster.uuid) });
    await ctx.hooks.afterCreate?.('recordset', made.id!);
    await ctx.ledger.record({ service: 'dns', type: 'recordset', cloudId: recordId(zoneId, made.id!), name: want.name, step: 'ingress_dns_record' });
    await ctx.event('addons', 'IngressDnsRecordCreated',
      `The cluster's services are ${want.name.replace(/\.$/, '')} (A ${address}, zone ${want.zone}): the Ingress serving them takes this address with the annotations octavia.ingress.kubernetes.io/floatingip: "${address}" and octavia.ingress.kubernetes.io/keep-floatingip: "true".`, 'info');
  },
};

/** Delete (after the API's record, which takes every recorded one): the wildcard record by its name when it carries the cluster's uuid. */
export const purgeIngressDnsRecord: Step = {
  name: 'ingress_dns_record',
  before: ['load_balancers'],
  async run(ctx) {
    const spec = await clusterSpec(ctx).catch(() => null);
    const want = spec ? settingsOf<IngressSettings>(spec, 'ingress').wildcardDns : null;
    if (!want) return;
    await purge(ctx, {
      service: 'dns', type: 'recordset',
      client: (cloud) => cloud.designate(),
      find: (d) => recordsNamed(d, want),
      delete: deleteRecord,
    });
  },
};
