// What every route module gets: state, token service, URLs, and the caller/policy helpers.
import type { FastifyRequest } from 'fastify';
import { accessRuleAllows } from './appcreds.js';
import type { Authenticator } from './authenticate.js';
import { ksErrors } from './errors.js';
import type { KeystoneState } from './state.js';
import type { TokenService, ValidatedToken } from './token-service.js';

export class Urls {
  private base: string;

  constructor(publicUrl: string) {
    this.base = Urls.normalize(publicUrl);
  }

  static normalize(url: string): string {
    return url.replace(/\/+$/, '');
  }

  set publicUrl(url: string) {
    this.base = Urls.normalize(url);
  }

  get publicUrl(): string {
    return this.base;
  }

  /** The identity endpoint, `<publicUrl>/v3`. */
  get v3(): string {
    return `${this.base}/v3`;
  }

  /** An absolute link under /v3, e.g. link('/projects/123'). */
  link(path: string): string {
    return `${this.base}/v3${path}`;
  }
}

export interface SimContext {
  state: KeystoneState;
  tokens: TokenService;
  authenticator: Authenticator;
  urls: Urls;
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function subjectTokenHeader(request: FastifyRequest): string | undefined {
  return header(request, 'x-subject-token');
}

/** OpenStack-Identity-Access-Rules: the version of access rules the caller enforces, if any. */
export function accessRulesHeader(request: FastifyRequest): string | undefined {
  return header(request, 'openstack-identity-access-rules');
}

/** The caller's token from X-Auth-Token, fully validated; 401 when missing or invalid. */
export async function callerToken(ctx: SimContext, request: FastifyRequest): Promise<ValidatedToken> {
  const id = header(request, 'x-auth-token');
  const rules = accessRulesHeader(request);
  const token = id === undefined ? undefined : await ctx.tokens.validate(id, rules === undefined ? {} : { accessRules: rules });
  if (!token) throw ksErrors.unauthorized();
  // A caller that enforces access rules gets a credential's token checked against its identity rules too.
  const own = token.appCred?.accessRules ?? [];
  const path = request.url.split('?')[0] ?? '';
  const validation = request.method === 'GET' && path.endsWith('/v3/auth/tokens');
  if (own.length > 0 && !validation && !accessRuleAllows(own, 'identity', request.method, path)) throw ksErrors.unauthorized();
  return token;
}

export function hasRole(ctx: SimContext, token: ValidatedToken, roleName: string): boolean {
  const role = ctx.state.findRoleByName(roleName);
  return role !== undefined && token.roleIds.includes(role.id);
}

/** Keystone's legacy `admin_required`: the admin role on whatever the token is scoped to. */
export function isAdmin(ctx: SimContext, token: ValidatedToken): boolean {
  return hasRole(ctx, token, 'admin');
}

export function forbidAction(action: string): never {
  throw ksErrors.forbidden(`You are not authorized to perform the requested action: ${action}.`);
}

export function requireAdmin(ctx: SimContext, token: ValidatedToken, action: string): void {
  if (!isAdmin(ctx, token)) forbidAction(action);
}

export function requireAdminOrOwner(ctx: SimContext, token: ValidatedToken, userId: string, action: string): void {
  if (!isAdmin(ctx, token) && token.user.id !== userId) forbidAction(action);
}
