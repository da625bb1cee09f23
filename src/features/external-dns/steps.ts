// ExternalDNS (label external_dns_zone): the create checks that the zone is the project's before the add-on
// is applied; the delete removes every record ExternalDNS published for the cluster. Those records are in
// no ledger (a controller in the cluster made them): they are found by ExternalDNS's TXT registry, whose
// TXT records say `heritage=external-dns,external-dns/owner=<cluster uuid>`. Each owned TXT names the record it
// guards: `a-<name>`, `aaaa-<name>` or `cname-<name>` (the current format), or `<name>` itself (the older
// one, any of A, AAAA and CNAME). Records without our owner mark are never touched.
import type { Recordset } from '../../openstack/designate.js';
import { settingsOf } from '../../bootstrap/addons/framework.js';
import type { ExternalDnsSettings } from './addon.js';
import type { Step } from '../../steps/step.js';
import { clusterSpec } from '../../steps/context.js';
import { designate, zoneOf, type ZoneUse } from '../../steps/designate.js';
import { offered } from '../../steps/services.js';

const USE: ZoneUse = { label: 'external_dns_zone', condition: 'addons' };
const GUARDED = ['A', 'AAAA', 'CNAME'] as const;

export const ensureExternalDnsZone: Step = {
  name: 'external_dns_zone',
  before: ['addons'],
  condition: 'addons',
  async run(ctx) {
    const zone = settingsOf<ExternalDnsSettings>(await clusterSpec(ctx), 'externalDns').zone;
    if (zone) await zoneOf(await designate(ctx, USE), zone, USE);
  },
};

/** True when a TXT record's text is ExternalDNS's ownership mark for `owner`. */
export function ownedBy(txt: string, owner: string): boolean {
  const fields = txt.replace(/^"|"$/g, '').split(',');
  return fields.includes('heritage=external-dns') && fields.includes(`external-dns/owner=${owner}`);
}

/** The records an owned TXT guards, of those in the zone. */
export function guarded(txt: Recordset, all: readonly Recordset[]): Recordset[] {
  const [first, ...rest] = txt.name!.split('.');
  const prefixed = /^(a|aaaa|cname)-(.+)$/.exec(first!);
  const wanted: [string, string][] = prefixed
    ? [[[prefixed[2]!, ...rest].join('.'), prefixed[1]!.toUpperCase()]]
    : GUARDED.map((t) => [txt.name!, t]);
  return all.filter((r) => wanted.some(([name, type]) => r.name === name && r.type === type));
}

/**
 * Delete (after the servers, so ExternalDNS is no longer running to publish again): in the spec's zone, or in every
 * zone of the project when the spec no longer parses. Guarded records go before their TXT, so a run cut short
 * finds them again.
 */
export const purgeExternalDnsRecords: Step = {
  name: 'external_dns_records',
  before: ['ports'],
  after: ['node_volumes'],
  async run(ctx) {
    if (!ctx.cluster.app_cred_id) return;
    const zone = await clusterSpec(ctx).then((s) => settingsOf<ExternalDnsSettings>(s, 'externalDns').zone, () => undefined);
    if (zone === null) return;
    const d = await offered(() => ctx.cloud().designate());
    if (!d) return;
    const zones = (await d.listZones(zone ? { name: zone } : {})).filter((z) => z.id && (!zone || z.name === zone));
    let removed = 0;
    for (const z of zones) {
      const all = await d.listRecordsets(z.id!);
      const owned = all.filter((r) => r.type === 'TXT' && (r.records ?? []).some((t) => ownedBy(t, ctx.cluster.uuid)));
      for (const txt of owned) {
        for (const r of guarded(txt, all)) if (await d.deleteRecordset(z.id!, r.id!)) removed++;
        if (await d.deleteRecordset(z.id!, txt.id!)) removed++;
      }
    }
    if (removed > 0) ctx.log('external-dns records removed', { count: removed });
  },
};
