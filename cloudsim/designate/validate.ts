// Designate's checks on names and record data: zone names are absolute ('example.org.') with at
// least two labels; recordset names are absolute and inside their zone; each record type has its
// own data format.
import { isIPv4, isIPv6 } from 'node:net';
import { dnsErrors } from './errors.js';

const LABEL = /^(?!-)[A-Za-z0-9_-]{1,63}(?<!-)$/;
/** Host names may start with a wildcard label. */
const isFqdn = (name: string, wildcard = false): boolean => {
  if (!name.endsWith('.') || name.length > 255) return false;
  const labels = name.slice(0, -1).split('.');
  return labels.length > 0 && labels.every((l, i) => LABEL.test(l) || (wildcard && i === 0 && l === '*'));
};

export const RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'TXT', 'MX', 'NS', 'PTR', 'SRV', 'CAA', 'SSHFP', 'SPF'] as const;
/** Types Designate keeps itself: the API refuses to create them. */
export const MANAGED_TYPES = ['SOA'];

const RECORD_FORMATS: Record<string, { format: string; ok: (data: string) => boolean }> = {
  A: { format: 'ipv4', ok: (d) => isIPv4(d) },
  AAAA: { format: 'ipv6', ok: (d) => isIPv6(d) },
  CNAME: { format: 'domainname', ok: (d) => isFqdn(d) },
  NS: { format: 'domainname', ok: (d) => isFqdn(d) },
  PTR: { format: 'domainname', ok: (d) => isFqdn(d) },
  MX: { format: 'mxrecord', ok: (d) => /^\d{1,5} \S+$/.test(d) && isFqdn(d.split(' ')[1]!) },
  SRV: { format: 'srvrecord', ok: (d) => /^\d{1,5} \d{1,5} \d{1,5} \S+$/.test(d) && isFqdn(d.split(' ')[3]!) },
  TXT: { format: 'txt-data', ok: (d) => d.length > 0 && d.length <= 255 && (!d.startsWith('"') || (d.length > 1 && d.endsWith('"'))) },
  SPF: { format: 'txt-data', ok: (d) => d.length > 0 && d.length <= 255 },
  CAA: { format: 'caa', ok: (d) => /^\d{1,3} (issue|issuewild|iodef) \S+$/.test(d) },
  SSHFP: { format: 'sshfp', ok: (d) => /^\d \d [0-9A-Fa-f]+$/.test(d) },
};

type Body = Record<string, unknown>;

/** The absolute zone name of a create body, lower-cased. */
export function zoneName(b: Body): string {
  const name = b.name;
  if (typeof name !== 'string') throw dnsErrors.invalidObject('name', name === undefined ? "'name' is a required property" : `${JSON.stringify(name)} is not of type 'string'`);
  if (!isFqdn(name)) throw dnsErrors.invalidObject('name', `'${name}' is not a 'zonename'`, 'format');
  if (name.slice(0, -1).split('.').length < 2) throw dnsErrors.invalidZoneName('More than one label is required');
  return name.toLowerCase();
}

export function email(b: Body, required: boolean): string | undefined {
  const v = b.email;
  if (v === undefined && !required) return undefined;
  if (typeof v !== 'string') throw dnsErrors.invalidObject('email', v === undefined ? "'email' is a required property" : `${JSON.stringify(v)} is not of type 'string'`);
  if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(v)) throw dnsErrors.invalidObject('email', `'${v}' is not a 'email'`, 'format');
  return v;
}

/** A TTL (1..2^31-1); null stays null where allowed (recordsets inherit the zone's). */
export function ttl(b: Body, nullable: boolean): number | null | undefined {
  const v = b.ttl;
  if (v === undefined) return undefined;
  if (v === null && nullable) return null;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw dnsErrors.invalidObject('ttl', `${JSON.stringify(v)} is not of type 'integer'`);
  if (v < 1 || v > 2147483647) throw dnsErrors.invalidObject('ttl', `${v} is out of range`, 'minimum');
  return v;
}

export function description(b: Body): string | null | undefined {
  const v = b.description;
  if (v === undefined || v === null) return v;
  if (typeof v !== 'string') throw dnsErrors.invalidObject('description', `${JSON.stringify(v)} is not of type 'string'`);
  if (v.length > 160) throw dnsErrors.invalidObject('description', `'${v}' is too long`, 'maxLength');
  return v;
}

/** The absolute, lower-cased name of a recordset, which must lie in `zone`. */
export function recordsetName(b: Body, zone: string): string {
  const name = b.name;
  if (typeof name !== 'string') throw dnsErrors.invalidObject('name', name === undefined ? "'name' is a required property" : `${JSON.stringify(name)} is not of type 'string'`);
  if (!isFqdn(name, true)) throw dnsErrors.invalidObject('name', `'${name}' is not a 'hostname'`, 'format');
  const lower = name.toLowerCase();
  if (lower !== zone && !lower.endsWith(`.${zone}`)) throw dnsErrors.invalidLocation("RecordSet is not contained within it's parent zone");
  return lower;
}

export function recordType(b: Body): string {
  const t = b.type;
  if (typeof t !== 'string') throw dnsErrors.invalidObject('type', t === undefined ? "'type' is a required property" : `${JSON.stringify(t)} is not of type 'string'`);
  const upper = t.toUpperCase();
  if (MANAGED_TYPES.includes(upper)) throw dnsErrors.badRequest('Creating a SOA recordset is not allowed');
  if (!(RECORD_TYPES as readonly string[]).includes(upper)) throw dnsErrors.invalidObject('type', `'${t}' is not one of ${JSON.stringify(RECORD_TYPES)}`, 'enum');
  return upper;
}

/** The records of a body, each checked against the type's format. */
export function records(b: Body, type: string): string[] {
  const v = b.records;
  if (!Array.isArray(v)) throw dnsErrors.invalidObject('records', v === undefined ? "'records' is a required property" : `${JSON.stringify(v)} is not of type 'array'`);
  const fmt = RECORD_FORMATS[type];
  const out: string[] = [];
  v.forEach((r, i) => {
    if (typeof r !== 'string') throw dnsErrors.invalidObject(`records/${i}`, `${JSON.stringify(r)} is not of type 'string'`);
    if (fmt && !fmt.ok(r)) throw dnsErrors.invalidObject(`records/${i}`, `'${r}' is not a '${fmt.format}'`, 'format');
    if (!out.includes(r)) out.push(r);
  });
  if (type === 'CNAME' && out.length > 1) throw dnsErrors.badRequest('CNAME recordsets may only have one record');
  return out;
}
