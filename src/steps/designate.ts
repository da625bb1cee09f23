// What a step needs of Designate: the project's zone a label names, and the service itself, each failing the
// step with a reason naming the label when absent; and how a record is kept in the ledger (`<zone>/<recordset>`).
// Used by the features that publish names (api-dns, ingress, external-dns).
import type { ConditionType } from '../domain/cluster-status.js';
import type { Named } from './ensure.js';
import type { DesignateClient } from '../openstack/designate.js';
import { StepFailure } from './errors.js';
import { required } from './services.js';
import type { RunContext } from './step.js';

export const recordId = (zoneId: string, recordsetId: string): string => `${zoneId}/${recordsetId}`;

/** Which label asked for a zone, and the condition a missing zone or DNS service fails. */
export interface ZoneUse {
  label: string;
  condition: ConditionType;
}

/** The zone named `name` in the project's Designate; a failure naming it when there is none. */
export async function zoneOf(d: DesignateClient, name: string, use: ZoneUse): Promise<string> {
  const zone = (await d.listZones({ name })).find((z) => z.name === name);
  if (!zone?.id) throw new StepFailure('DnsZoneNotFound', `DNS zone ${name} (label ${use.label}) was not found in the cluster's project.`, use.condition);
  return zone.id;
}

export function designate(ctx: RunContext, use: ZoneUse): Promise<DesignateClient> {
  return required(() => ctx.cloud().designate(), { reason: 'DnsUnavailable', label: use.label, service: 'the DNS service (Designate)', condition: use.condition });
}

/** The A records named `want.name` in its zone, as ledger ids (`<zone>/<recordset>`); none when the zone is not the project's. */
export async function recordsNamed(d: DesignateClient, want: { zone: string; name: string }): Promise<Named[]> {
  const zoneId = (await d.listZones({ name: want.zone })).find((z) => z.name === want.zone)?.id;
  if (!zoneId) return [];
  const found = await d.listRecordsets(zoneId, { name: want.name, type: 'A' });
  // A `*` in the name filter is a glob to Designate: the exact name only.
  return found.filter((rs) => rs.id && rs.name === want.name).map((rs) => ({ id: recordId(zoneId, rs.id!), description: rs.description ?? null }));
}

/** Deletes a record by its ledger id; false when already gone. */
export function deleteRecord(d: DesignateClient, id: string): Promise<boolean> {
  const [zoneId, recordsetId] = id.split('/');
  return d.deleteRecordset(zoneId!, recordsetId!);
}
