// Application-credential access rules, enforced as keystonemiddleware's auth_token does
// (validate_allowed_request): a token of a credential with access rules may do only what one of its
// rules names — this service's type, the request's method, and a path template matching the path.
// The API sends `OpenStack-Identity-Access-Rules: 1.0` when it validates tokens, which tells Keystone
// it enforces them: without this check Keystone would hand over such tokens and the rules would be
// ignored.
//
// Path templates (Keystone's access-rule `path`): `*` or `{name}` match one path segment (at least one
// character, no `/`), `**` matches anything (also `/` and nothing), every other character matches
// itself. The whole path must match.
import type { AuthContext } from './context.js';

export interface AccessRule {
  service: string;
  method: string;
  path: string;
}

/** The service type the API enforces access rules for (its catalog type). */
export const SERVICE_TYPE = 'container-infra';

const TOKEN = /\{[^}]*\}|\*\*|\*|[^{*]+|\{/g;
const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const compiled = new Map<string, RegExp>();

/** The template as a regular expression over the whole path. */
export function templateRegExp(template: string): RegExp {
  let re = compiled.get(template);
  if (re) return re;
  let body = '';
  for (const [tok] of template.matchAll(TOKEN)) {
    if (tok === '**') body += '.*';
    else if (tok === '*' || (tok.startsWith('{') && tok.endsWith('}'))) body += '[^/]+';
    else body += escape(tok);
  }
  re = new RegExp(`^${body}$`, 's');
  if (compiled.size > 10_000) compiled.clear();
  compiled.set(template, re);
  return re;
}

export function pathMatches(path: string, template: string): boolean {
  return templateRegExp(template).test(path);
}

export interface AccessRequest {
  method: string;
  /** The forms of the request's path that name the same resource (as sent, and as routed). */
  paths: string[];
}

/**
 * Why the caller may not make this request under its credential's access rules; undefined when it
 * may (no application credential, or one without rules). Like keystonemiddleware, a token whose
 * catalog lacks this service cannot be checked and is refused.
 */
export function accessRuleRefusal(ctx: AuthContext, req: AccessRequest, serviceType = SERVICE_TYPE): string | undefined {
  const rules = ctx.applicationCredential?.accessRules;
  if (!rules) return undefined;
  if (!ctx.catalog.some((s) => s.type === serviceType)) {
    return `the token's catalog has no ${serviceType} service to check the application credential's access rules against`;
  }
  const ok = rules.some((r) => r.service === serviceType && r.method === req.method && req.paths.some((p) => pathMatches(p, r.path)));
  return ok ? undefined : `no access rule of the application credential allows ${req.method} ${req.paths[0] ?? ''}`;
}

/**
 * The forms of a request's path a rule may name, each without query and percent-decoded (as WSGI hands
 * the path to keystonemiddleware): as sent, and without a trailing slash, for the URL the client sent
 * and the one it was routed as (`/clusters` is served as `/v1/clusters`).
 */
export function requestPaths(...urls: string[]): string[] {
  const out = new Set<string>();
  for (const url of urls) {
    const raw = url.split('?')[0] ?? '';
    let path: string;
    try {
      path = decodeURIComponent(raw);
    } catch {
      path = raw;
    }
    out.add(path);
    if (path.length > 1) out.add(path.replace(/\/+$/, '') || '/');
  }
  return [...out];
}
