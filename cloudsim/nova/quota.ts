// Nova's quotas (DbQuotaDriver): defaults from nova.conf [quota], per-project overrides set by an
// admin, and the 403 messages of the checks at create (spec openstack-apis §2.8, §2.9).
import { SimError } from '../common/errors.js';
import { atLeast, type Version } from './microversion.js';

export const QUOTA_DEFAULTS = {
  instances: 10,
  cores: 20,
  ram: 51200,
  key_pairs: 100,
  metadata_items: 128,
  server_groups: 10,
  server_group_members: 10,
  injected_files: 5,
  injected_file_content_bytes: 10240,
  injected_file_path_bytes: 255,
  // Proxied to nova-network once; shown up to 2.35 only.
  floating_ips: 10,
  fixed_ips: -1,
  security_groups: 10,
  security_group_rules: 20,
  networks: 3,
};

export type QuotaName = keyof typeof QUOTA_DEFAULTS;
export type NovaQuota = Record<QuotaName, number>;

const NETWORK_QUOTAS: QuotaName[] = ['floating_ips', 'fixed_ips', 'security_groups', 'security_group_rules', 'networks'];
const FILE_QUOTAS: QuotaName[] = ['injected_files', 'injected_file_content_bytes', 'injected_file_path_bytes'];

/** The quota names a microversion shows (network ones go at 2.36, injected files at 2.57). */
export function quotaNames(v: Version): QuotaName[] {
  return (Object.keys(QUOTA_DEFAULTS) as QuotaName[]).filter(
    (k) => !(atLeast(v, 36) && NETWORK_QUOTAS.includes(k)) && !(atLeast(v, 57) && FILE_QUOTAS.includes(k)),
  );
}

/** Names PUT accepts at a microversion (the same set, plus `force`). */
export const updatableQuotas = quotaNames;

/** What a project uses of the counted resources. */
export interface QuotaUsage {
  instances: number;
  cores: number;
  ram: number;
  server_groups: number;
  key_pairs: number;
}

const unlimited = (limit: number) => limit < 0;

/**
 * 403 TooManyInstances when one more server of `vcpus`/`ram` would exceed instances, cores or ram:
 * "Quota exceeded for cores, ram: Requested 4, 8192, but already used 10, 20480 of 12, 24576 cores, ram".
 */
export function checkInstanceQuota(limits: NovaQuota, used: QuotaUsage, requested: { instances: number; cores: number; ram: number }): void {
  const overs = (['cores', 'instances', 'ram'] as const).filter((r) => !unlimited(limits[r]) && used[r] + requested[r] > limits[r]);
  if (overs.length === 0) return;
  const join = (f: (r: (typeof overs)[number]) => number | string) => overs.map(f).join(', ');
  const names = overs.join(', ');
  throw new SimError(
    403,
    `Quota exceeded for ${names}: Requested ${join((r) => requested[r])}, but already used ${join((r) => used[r])} of ${join((r) => limits[r])} ${names}`,
  );
}

export function checkMetadataQuota(limits: NovaQuota, count: number): void {
  if (!unlimited(limits.metadata_items) && count > limits.metadata_items) {
    throw new SimError(403, `Maximum number of metadata items exceeds ${limits.metadata_items}`);
  }
}

export function checkKeypairQuota(limits: NovaQuota, used: number): void {
  if (!unlimited(limits.key_pairs) && used + 1 > limits.key_pairs) throw new SimError(403, 'Quota exceeded, too many key pairs.');
}

export function checkServerGroupQuota(limits: NovaQuota, used: number): void {
  if (!unlimited(limits.server_groups) && used + 1 > limits.server_groups) throw new SimError(403, 'Quota exceeded, too many server groups.');
}

export function checkGroupMembersQuota(limits: NovaQuota, members: number): void {
  if (!unlimited(limits.server_group_members) && members + 1 > limits.server_group_members) {
    throw new SimError(403, 'Quota exceeded, too many servers in group');
  }
}
