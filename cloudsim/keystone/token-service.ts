// Issuing tokens and rebuilding them from state on every validation (revocation, enabled flags, roles).
import type { AppCred } from './appcreds.js';
import { isoMicro } from './format.js';
import { newAuditId } from './secrets.js';
import type { Domain, KeystoneState, Project, Scope, User } from './state.js';
import type { TokenCodec, TokenPayload } from './tokens.js';

/** A token that passed every check, with the entities it refers to as they are now. */
export interface ValidatedToken {
  id: string;
  payload: TokenPayload;
  user: User;
  userDomain: Domain;
  project?: Project;
  projectDomain?: Domain;
  domain?: Domain;
  system: boolean;
  /** Effective roles now (implied included; intersected with the app credential's roles). Empty when unscoped. */
  roleIds: string[];
  appCred?: AppCred;
}

export interface IssueRequest {
  userId: string;
  methods: string[];
  scope?: Scope | undefined;
  appCredId?: string | undefined;
  /** Absolute expiry to keep (rescoping) or cap (app credential); default now + TTL. */
  expiresAt?: number | undefined;
  /** Audit ids of the token being rescoped. */
  parentAuditIds?: string[] | undefined;
}

export interface TokenServiceOptions {
  ttlMs: number;
  allowExpiredWindowMs: number;
}

export class TokenService {
  constructor(
    private readonly state: KeystoneState,
    private readonly codec: TokenCodec,
    private readonly opts: TokenServiceOptions,
  ) {}

  /** Mints a token. Returns undefined when the request does not yield a valid token (e.g. no roles on the scope). */
  async issue(req: IssueRequest): Promise<ValidatedToken | undefined> {
    const prec = this.codec.precisionMs;
    const now = this.state.now();
    const issuedAt = Math.floor(now / prec) * prec;
    const expiresAt = Math.floor(Math.min(req.expiresAt ?? Infinity, issuedAt + this.opts.ttlMs) / prec) * prec;
    const auditId = newAuditId();
    const parent = req.parentAuditIds;
    const payload: TokenPayload = {
      userId: req.userId,
      methods: req.methods,
      auditIds: parent ? [auditId, parent[1] ?? parent[0] ?? auditId] : [auditId],
      issuedAt,
      expiresAt,
      ...(req.scope ? { scope: req.scope } : {}),
      ...(req.appCredId !== undefined ? { appCredId: req.appCredId } : {}),
    };
    if (now >= expiresAt) return undefined;
    this.state.revocations.recordIssued(auditId);
    const draft = this.rebuild('', payload);
    if (!draft) return undefined;
    return { ...draft, id: await this.codec.encode(payload) };
  }

  /**
   * Full validation as Keystone does it; undefined for any invalid token (unknown, expired, revoked, ...).
   * `accessRules` is the caller's OpenStack-Identity-Access-Rules header: a token of an application
   * credential with access rules is valid only for a caller that says it enforces them (version 1.0 or
   * later), as Keystone's token provider checks (_validate_token_access_rules).
   */
  async validate(tokenId: string, opts: { allowExpired?: boolean; accessRules?: string } = {}): Promise<ValidatedToken | undefined> {
    if (tokenId === '') return undefined;
    const payload = await this.codec.decode(tokenId);
    if (!payload) return undefined;
    const now = this.state.now();
    if (now >= payload.expiresAt) {
      if (!opts.allowExpired || now >= payload.expiresAt + this.opts.allowExpiredWindowMs) return undefined;
    }
    const token = this.rebuild(tokenId, payload);
    if (token?.appCred && token.appCred.accessRules.length > 0 && !(Number(opts.accessRules) >= 1.0)) return undefined;
    return token;
  }

  private rebuild(id: string, payload: TokenPayload): ValidatedToken | undefined {
    const { state } = this;
    if (state.revocations.isRevoked(payload.userId, payload.auditIds)) return undefined;
    const user = state.users.get(payload.userId);
    const userDomain = user && state.domains.get(user.domainId);
    if (!user?.enabled || !userDomain?.enabled) return undefined;
    const token: ValidatedToken = { id, payload, user, userDomain, system: false, roleIds: [] };
    const scope = payload.scope;
    if (scope?.kind === 'project') {
      const project = state.projects.get(scope.id);
      const projectDomain = project && state.domains.get(project.domainId);
      if (!project?.enabled || !projectDomain?.enabled) return undefined;
      token.project = project;
      token.projectDomain = projectDomain;
    } else if (scope?.kind === 'domain') {
      const domain = state.domains.get(scope.id);
      if (!domain?.enabled) return undefined;
      token.domain = domain;
    } else if (scope?.kind === 'system') {
      if (scope.id !== 'all') return undefined;
      token.system = true;
    }
    if (payload.appCredId !== undefined) {
      const cred = state.appCreds.get(payload.appCredId);
      if (!cred || cred.userId !== user.id || state.appCreds.isExpired(cred, state.now())) return undefined;
      if (scope?.kind !== 'project' || scope.id !== cred.projectId) return undefined;
      token.appCred = cred;
      token.roleIds = state.appCreds.tokenRoleIds(cred);
    } else if (scope) {
      token.roleIds = state.effectiveRoleIds(user.id, scope);
    }
    if (scope && token.roleIds.length === 0) return undefined;
    return token;
  }

  /** The `{"token": {...}}` body of POST/GET /v3/auth/tokens. */
  body(t: ValidatedToken, includeCatalog: boolean): { token: Record<string, unknown> } {
    const { state } = this;
    const body: Record<string, unknown> = {
      methods: t.payload.methods,
      user: {
        domain: { id: t.userDomain.id, name: t.userDomain.name },
        id: t.user.id,
        name: t.user.name,
        password_expires_at: null,
      },
      audit_ids: t.payload.auditIds,
      expires_at: isoMicro(t.payload.expiresAt),
      issued_at: isoMicro(t.payload.issuedAt),
    };
    if (t.project && t.projectDomain) {
      body.project = {
        domain: { id: t.projectDomain.id, name: t.projectDomain.name },
        id: t.project.id,
        name: t.project.name,
      };
      body.is_domain = false;
    }
    if (t.domain) body.domain = { id: t.domain.id, name: t.domain.name };
    if (t.system) body.system = { all: true };
    const scoped = t.payload.scope !== undefined;
    if (scoped) {
      body.roles = t.roleIds.map((id) => ({ id, name: state.roles.get(id)?.name ?? id }));
    }
    if (t.appCred) {
      body.application_credential = {
        id: t.appCred.id,
        name: t.appCred.name,
        restricted: !t.appCred.unrestricted,
        ...(t.appCred.accessRules.length > 0 ? { access_rules: t.appCred.accessRules } : {}),
      };
    }
    if (includeCatalog && scoped) {
      body.catalog = state.catalog.forToken({
        userId: t.user.id,
        ...(t.project ? { projectId: t.project.id } : {}),
      });
    }
    return { token: body };
  }
}
