// Finding a service's endpoint in the catalog of a validated token (spec openstack-apis §1.7):
// match the type or one of its official aliases, then the interface, then the region; the first
// endpoint left wins. URLs are returned without a trailing slash.
import type { CatalogEntry } from '../keystone/context.js';

export type Interface = 'public' | 'internal' | 'admin';

export interface EndpointFilter {
  /** Default 'public' (what openstacksdk and the CLI use). */
  interface?: Interface;
  /** Only endpoints of this region (region_id, or the legacy region field); any region when absent. */
  region?: string;
}

/** Official service types and their aliases, in preference order (Service Types Authority). */
const ALIASES: Record<string, string[]> = {
  'block-storage': ['volumev3', 'volumev2', 'volume', 'block-store'],
  'container-infrastructure-management': ['container-infrastructure', 'container-infra'],
  'shared-file-system': ['sharev2', 'share'],
  'load-balancer': [],
  compute: [],
  image: [],
  network: [],
  identity: [],
};

/** The type itself first, then the other names of the same service. */
export function serviceTypeNames(type: string): string[] {
  const official = Object.keys(ALIASES).find((k) => k === type || ALIASES[k]!.includes(type)) ?? type;
  const names = [official, ...(ALIASES[official] ?? [])];
  return [type, ...names.filter((n) => n !== type)];
}

/** The endpoint URL of `type`, or undefined when the catalog has none matching the filter. */
export function findEndpoint(catalog: CatalogEntry[], type: string, filter: EndpointFilter = {}): string | undefined {
  const iface = filter.interface ?? 'public';
  for (const name of serviceTypeNames(type)) {
    for (const entry of catalog) {
      if (entry.type !== name) continue;
      const ep = entry.endpoints.find(
        (e) =>
          normalizeInterface(e.interface) === iface &&
          (filter.region === undefined || (e.region_id ?? e.region) === filter.region),
      );
      if (ep) return ep.url.replace(/\/+$/, '');
    }
  }
  return undefined;
}

/** Keystone v2-style catalogs spelled interfaces `publicURL`; v3 uses `public`. */
function normalizeInterface(value: string): string {
  return value.toLowerCase().replace(/url$/, '');
}
