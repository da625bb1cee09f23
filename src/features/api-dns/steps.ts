// The API's DNS name (label api_dns_zone): an A record for the endpoint's address in a Designate zone
// of the cluster's project, named from the cluster (spec.apiServer.dnsRecord). Ours by the cluster
// uuid in its description; recorded in the ledger as `<zone id>/<recordset id>`. Removed at delete,
// with the services' wildcard record (ingress-dns.ts).
import type { Recordset } from '../../openstack/designate.js';
import { deleteRecord, designate, recordId, recordsNamed, zoneOf, type ZoneUse } from '../../steps/designate.js';
import { StepFailure } from '../../steps/errors.js';
import { clusterDescription } from '../../steps/naming.js';
import type { RunContext, Step } from '../../steps/step.js';
import { clusterSpec } from '../../steps/context.js';
import { ours, purge } from '../../steps/ensure.js';

const TTL = 300;
const API_ZONE: ZoneUse = { label: 'api_dns_zone', condition: 'api_lb' };

export const ensureApiDnsRecord: Step = {
  name: 'api_dns_record',
  condition: 'api_lb',
  after: ['api_endpoint'],
  /** The API's A record in its zone. */
  bill: ({ spec }) => (spec.apiServer.dnsRecord ? { zone_recordsets: 1 } : {}),
  async run(ctx) {
    const want = (await clusterSpec(ctx)).apiServer.dnsRecord;
    if (!want) return;
    // The endpoint's external address, which the api_endpoint step wrote as the cluster's API address.
    const address = ctx.cluster.api_address ? new URL(ctx.cluster.api_address).hostname : undefined;
    if (!address) throw new StepFailure('NotReady', 'The cluster has no API address yet.', 'api_lb');
    const d = await designate(ctx, API_ZONE);
    const zoneId = await zoneOf(d, want.zone, API_ZONE);
    const existing: Recordset | undefined = (await d.listRecordsets(zoneId, { name: want.name, type: 'A' }))[0];
    if (existing?.id) {
      if (!ours({ id: existing.id, description: existing.description ?? null }, ctx.cluster.uuid)) {
        throw new StepFailure('DnsRecordConflict', `${want.name} already exists in zone ${want.zone} and is not this cluster's.`, 'api_lb');
      }
      await ctx.ledger.record({ service: 'dns', type: 'recordset', cloudId: recordId(zoneId, existing.id), name: want.name, step: 'api_dns_record' });
      return;
    }
    await ctx.checkpoint();
    const made = await d.createRecordset(zoneId, { name: want.name, type: 'A', records: [address], ttl: TTL, description: clusterDescription(ctx.cluster.uuid) });
    await ctx.hooks.afterCreate?.('recordset', made.id!);
    await ctx.ledger.record({ service: 'dns', type: 'recordset', cloudId: recordId(zoneId, made.id!), name: want.name, step: 'api_dns_record' });
    await ctx.event('api_lb', 'DnsRecordCreated', `The API is ${want.name.replace(/\.$/, '')} (A ${address}, zone ${want.zone}).`, 'info');
  },
};

/** Delete: the recorded records, and the API's name when it carries the cluster's uuid (a create that crashed before recording). */
export const purgeDnsRecords: Step = {
  name: 'dns_records',
  before: ['load_balancers'],
  async run(ctx) {
    const want = (await clusterSpec(ctx).catch(() => null))?.apiServer.dnsRecord ?? null;
    await purge(ctx, {
      service: 'dns', type: 'recordset',
      client: (cloud) => cloud.designate(),
      find: want ? (d) => recordsNamed(d, want) : undefined,
      delete: deleteRecord,
    });
  },
};
