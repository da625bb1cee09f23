// The caller, as Keystone describes the validated token. Built once per validation and cached.
import type { AccessRule } from './access-rules.js';

export interface CatalogEndpoint {
  interface: string;
  region_id?: string;
  region?: string;
  url: string;
}
export interface CatalogEntry {
  type: string;
  name?: string;
  endpoints: CatalogEndpoint[];
}

export interface AuthContext {
  userId: string;
  userName: string;
  userDomainId: string | null;
  /** The user's domain by name, when the token says it (an identity kubeconfig names it). */
  userDomainName?: string | null;
  projectId: string | null;
  projectName: string | null;
  projectDomainId: string | null;
  domainId: string | null;
  /** What the token is scoped to: a project, a domain, the whole system, or nothing. */
  scope: 'project' | 'domain' | 'system' | 'unscoped';
  roles: string[];
  /**
   * Cloud admin: the admin role in a project-scoped or system-scoped token. A domain-scoped token's
   * admin role is its domain's only and never a cloud admin's; an unscoped token holds no roles.
   */
  isAdmin: boolean;
  /** Expiry of the token, epoch milliseconds. */
  expiresAt: number;
  catalog: CatalogEntry[];
  /**
   * Set when the token came from an application credential; `accessRules` when the credential has
   * access rules (Keystone renders them only then), which limit what its tokens may do.
   */
  applicationCredential: { id: string; restricted: boolean; accessRules: AccessRule[] | null } | null;
}

interface TokenBody {
  token: {
    user: { id: string; name: string; domain?: { id: string; name?: string } };
    project?: { id: string; name: string; domain?: { id: string } };
    domain?: { id: string };
    system?: { all?: boolean };
    roles?: { name: string }[];
    expires_at: string;
    catalog?: CatalogEntry[];
    application_credential?: { id: string; restricted?: boolean; access_rules?: AccessRule[] };
  };
}

export function contextFromToken(body: unknown): AuthContext {
  const t = (body as TokenBody).token;
  const roles = (t.roles ?? []).map((r) => r.name.toLowerCase());
  const scope = t.project ? 'project' : t.domain ? 'domain' : t.system?.all === true ? 'system' : 'unscoped';
  return {
    userId: t.user.id,
    userName: t.user.name,
    userDomainId: t.user.domain?.id ?? null,
    userDomainName: t.user.domain?.name ?? null,
    projectId: t.project?.id ?? null,
    projectName: t.project?.name ?? null,
    projectDomainId: t.project?.domain?.id ?? null,
    domainId: t.domain?.id ?? null,
    scope,
    roles,
    isAdmin: roles.includes('admin') && (scope === 'project' || scope === 'system'),
    expiresAt: Date.parse(t.expires_at),
    catalog: t.catalog ?? [],
    applicationCredential: t.application_credential ? appCred(t.application_credential) : null,
  };
}

function appCred(c: NonNullable<TokenBody['token']['application_credential']>): NonNullable<AuthContext['applicationCredential']> {
  const rules = Array.isArray(c.access_rules)
    ? c.access_rules.map((r) => ({ service: String(r.service), method: String(r.method), path: String(r.path) }))
    : null;
  return { id: c.id, restricted: c.restricted !== false, accessRules: rules };
}
