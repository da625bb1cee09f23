// OpenStack-API-Version negotiation for container-infra (spec §1.2–§1.4).
import { errors, MicroversionUnsupported } from './errors.js';

export const MIN_VERSION = { major: 1, minor: 1 } as const;
/** 1.10 is Zed's maximum; 1.11–1.14 are current Magnum's (bays removed, credential rotation, cluster_id, node labels/taints). */
export const MAX_VERSION = { major: 1, minor: 14 } as const;
export const SERVICE_TYPE = 'container-infra';
export const HEADER = 'openstack-api-version';

export interface ApiVersion {
  major: number;
  minor: number;
}

export const format = (v: ApiVersion): string => `${v.major}.${v.minor}`;

/** Parses the header value. Returns the resolved version, or throws the spec's 406. */
export function parseVersionHeader(raw: string | undefined): ApiVersion {
  if (raw === undefined) return { ...MIN_VERSION };
  const parts = raw.trim().split(/\s+/);
  if (parts.length !== 2) throw errors.notAcceptable('Invalid service type for OpenStack-API-Version header');
  const [service, version] = parts as [string, string];
  if (version.toLowerCase() === 'latest') return { ...MAX_VERSION };
  if (service !== SERVICE_TYPE) throw errors.notAcceptable('Invalid service type for OpenStack-API-Version header');
  const m = /^(\d+)\.(\d+)$/.exec(version);
  if (!m) throw errors.notAcceptable('Invalid value for OpenStack-API-Version header');
  const v = { major: Number(m[1]), minor: Number(m[2]) };
  if (v.major !== MAX_VERSION.major) {
    throw new MicroversionUnsupported(
      version,
      `Mutually exclusive versions requested. Version ${version} requested but not supported by this service. The supported version range is: [${format(MIN_VERSION)}, ${format(MAX_VERSION)}].`,
    );
  }
  if (v.minor < MIN_VERSION.minor || v.minor > MAX_VERSION.minor) {
    throw new MicroversionUnsupported(
      version,
      `Version ${version} was requested but the minor version is not supported by this service. The supported version range is: [${format(MIN_VERSION)}, ${format(MAX_VERSION)}].`,
    );
  }
  return v;
}

/** The version a header asks for, for the echo header even when it is out of range. */
export function requestedVersionText(raw: string | undefined): string {
  if (raw === undefined) return format(MIN_VERSION);
  const parts = raw.trim().split(/\s+/);
  const v = parts[1] ?? '';
  return v.toLowerCase() === 'latest' ? format(MAX_VERSION) : v;
}

export const atLeast = (v: ApiVersion, minor: number): boolean => v.major > 1 || v.minor >= minor;

export function versionHeaders(versionText: string): Record<string, string> {
  return {
    'openstack-api-minimum-version': `${SERVICE_TYPE} ${format(MIN_VERSION)}`,
    'openstack-api-maximum-version': `${SERVICE_TYPE} ${format(MAX_VERSION)}`,
    'openstack-api-version': `${SERVICE_TYPE} ${versionText}`,
    vary: 'OpenStack-API-Version',
  };
}

/** Node groups' node_labels and node_taints exist from 1.14 (current Magnum); below, they are unknown attributes. */
export const NODE_LABELS_VERSION = 14;
