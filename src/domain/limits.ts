// The bounds of what a request may ask for. Magnum's own where it has them (names 255, cluster
// names 242, ports 1024-65535, list pages of max_limit); elsewhere what the storage holds and what
// a cloud can run, so that a member can neither make a row the database refuses (a 500) nor make
// the API hold and serialize unbounded data. The schemas state them (the OpenAPI document shows
// them); the node counts also have a lower maximum of the deployment's configuration.
import { errors } from './errors.js';

/** Magnum's StringType(max_length=255): names, ids, flavors, networks, proxies, tags. */
export const STRING_MAX = 255;
/** Magnum's cluster name (a Heat stack name with room for its suffixes). */
export const CLUSTER_NAME_MAX = 242;
/**
 * Magnum's rule for cluster names, which node group names follow too: a letter, then letters, digits, `_`, `.` and
 * `-` (no spaces, `;`, `/`, control, zero-width or bidirectional characters). Such a name is a server name, a Node
 * label value once bounded (src/cluster-spec/node-labels.ts) and safe in any shell word.
 */
export const NAME_PATTERN = '^[a-zA-Z][a-zA-Z0-9_.-]*$';

/** Labels (and health_status_reason): entries, key and value length; the reserved keys a JavaScript object would misread. */
export const LABELS = { count: 100, keyLength: 255, valueLength: 4096 } as const;
export const HEALTH_REASON = { count: 10_000, keyLength: 255, valueLength: 1024 } as const;
export const RESERVED_KEYS: readonly string[] = ['__proto__', 'constructor', 'prototype'];

/**
 * Kubernetes node labels and taints of a node group (1.14): qualified names up to 253 + 1 + 63. Values
 * are bounded loosely here: Kubernetes' own syntax (63 characters) is checked with its own message.
 */
export const NODE_LABELS = { count: 100, keyLength: 317, valueLength: 255 } as const;
export const NODE_TAINTS_MAX = 100;

/**
 * Nodes of one node group: Kubernetes is tested up to 5,000 nodes a cluster, the most this API ever
 * accepts (MAX_NODE_COUNT may lower it). Control planes: etcd's advice is at most 7 members
 * (MAX_MASTER_COUNT may lower it).
 */
export const NODE_COUNT_CEILING = 5000;
export const MASTER_COUNT_CEILING = 7;

/** GiB of a node's container volume: 16 TiB, the largest volume common Cinder back ends make. */
export const VOLUME_SIZE_MAX = 16_384;
/** Minutes a create may take before it fails: a week. */
export const CREATE_TIMEOUT_MAX = 10_080;
/** A PostgreSQL integer (quota limits, quota ids). */
export const INT4_MAX = 2_147_483_647;
/** A CSR in PEM: an RSA 16384-bit key with many names still fits. */
export const CSR_MAX = 32_768;

/** The most a request body may hold (oslo.middleware's max_request_body_size, 112 KiB). */
export const BODY_LIMIT_DEFAULT = 114_688;
/** How deep a request body's JSON may nest (the deepest body this API takes is 3 levels). */
export const JSON_DEPTH_MAX = 32;
/** Operations of one JSON patch. */
export const PATCH_OPS_MAX = 100;

/** wsme's wording for a value above the configured maximum (the schema's own maximum is the ceiling). */
export function checkAtMost(field: string, value: number | null | undefined, max: number): void {
  if (typeof value === 'number' && value > max) throw errors.invalidInput(field, value, `Value should be lower or equal to ${max}`);
}

/**
 * A string map of a patch (health_status_reason): a dict whose keys and values fit `bounds`, values
 * as Python's str() writes them. The create bodies' maps are bounded by their schemas instead.
 */
export function boundedMap(
  field: string,
  value: unknown,
  bounds: { count: number; keyLength: number; valueLength: number },
): Record<string, string> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw errors.invalidInput(field, value, 'Value should be a dict');
  const entries = Object.entries(value);
  if (entries.length > bounds.count) throw errors.invalidInput(field, value, `Value should have at most ${bounds.count} entries`);
  const out: Record<string, string> = {};
  for (const [k, v] of entries) {
    if (k === '' || k.length > bounds.keyLength) throw errors.invalidInput(field, k, `Keys should have 1 to ${bounds.keyLength} characters`);
    if (RESERVED_KEYS.includes(k)) throw errors.invalidInput(field, k, 'This key is reserved');
    const s = v === true ? 'True' : v === false ? 'False' : v === null ? 'None' : String(v);
    if (s.length > bounds.valueLength) throw errors.invalidInput(`${field}.${k}`, s, `Value should have a maximum character requirement of ${bounds.valueLength}`);
    out[k] = s;
  }
  return out;
}

/** Characters of a message kept in an event, a condition or a status reason (some quote a tenant's own servers). */
export const MESSAGE_MAX = 4096;

/** `text` cut to MESSAGE_MAX characters, saying so. */
export function boundedMessage(text: string): string {
  return text.length > MESSAGE_MAX ? `${text.slice(0, MESSAGE_MAX - 40)}… (${text.length} characters, cut)` : text;
}
