// POST /v3/auth/tokens logic: resolve the identity methods, then the scope, into an issue request.
import type { AppCred } from './appcreds.js';
import { ksErrors } from './errors.js';
import type { AuthRequest } from './schemas.js';
import { verifySecret } from './secrets.js';
import type { KeystoneState, Scope, User } from './state.js';
import type { IssueRequest, TokenService, ValidatedToken } from './token-service.js';

type Identity = AuthRequest['auth']['identity'];
type ScopeRequest = AuthRequest['auth']['scope'];
type DomainRef = { id?: string | undefined; name?: string | undefined };

const SUPPORTED_METHODS = new Set(['password', 'token', 'application_credential']);

interface Resolved {
  user: User;
  /** Set when the `token` method was used. */
  source?: ValidatedToken;
  appCredId?: string;
  appCredProjectId?: string;
  expiresAt?: number;
}

export class Authenticator {
  constructor(
    private readonly state: KeystoneState,
    private readonly tokens: TokenService,
  ) {}

  async authenticate(auth: AuthRequest['auth']): Promise<ValidatedToken> {
    const methods = [...new Set(auth.identity.methods)];
    if (methods.some((m) => !SUPPORTED_METHODS.has(m))) throw ksErrors.unauthorized();
    const resolved = await this.resolveIdentity(auth.identity, methods);
    const req = this.scopeRequest(resolved, auth.scope, methods);
    const token = await this.tokens.issue(req);
    if (!token) throw ksErrors.unauthorized();
    return token;
  }

  private async resolveIdentity(identity: Identity, methods: string[]): Promise<Resolved> {
    const results: Resolved[] = [];
    for (const method of methods) {
      if (method === 'password') results.push(await this.password(identity.password));
      else if (method === 'token') results.push(await this.token(identity.token));
      else results.push(await this.appCred(identity.application_credential));
    }
    const first = results[0];
    if (!first || results.some((r) => r.user.id !== first.user.id)) throw ksErrors.unauthorized();
    return Object.assign({}, ...results) as Resolved;
  }

  private domainOf(ref: DomainRef | undefined, target: string): string {
    if (!ref || (ref.id === undefined && ref.name === undefined)) {
      throw ksErrors.badRequest(`Expecting to find domain in ${target}. The server could not comply with the request since it is either malformed or otherwise incorrect. The client is assumed to be in error.`);
    }
    const domain = this.state.findDomain(ref);
    if (!domain?.enabled) throw ksErrors.unauthorized();
    return domain.id;
  }

  private findUser(ref: { id?: string | undefined; name?: string | undefined; domain?: DomainRef | undefined }): User {
    let user: User | undefined;
    if (ref.id !== undefined) user = this.state.users.get(ref.id);
    else if (ref.name !== undefined) user = this.state.findUserByName(ref.name, this.domainOf(ref.domain, 'user'));
    else throw ksErrors.badRequest("Invalid input for field 'user': 'id' or 'name' is required.");
    const domain = user && this.state.domains.get(user.domainId);
    if (!user?.enabled || !domain?.enabled) throw ksErrors.unauthorized();
    return user;
  }

  private async password(payload: Identity['password']): Promise<Resolved> {
    if (!payload) throw ksErrors.badRequest("Expecting to find password in identity.");
    const user = this.findUser(payload.user);
    if (!user.passwordHash || !(await verifySecret(payload.user.password, user.passwordHash))) throw ksErrors.unauthorized();
    return { user };
  }

  private async token(payload: Identity['token']): Promise<Resolved> {
    if (!payload) throw ksErrors.badRequest('Expecting to find token in identity.');
    const source = await this.tokens.validate(payload.id);
    if (!source) throw ksErrors.unauthorized();
    return { user: source.user, source };
  }

  private async appCred(payload: Identity['application_credential']): Promise<Resolved> {
    if (!payload) throw ksErrors.badRequest('Expecting to find application_credential in identity.');
    const { appCreds } = this.state;
    let cred: AppCred | undefined;
    if (payload.id !== undefined) {
      cred = appCreds.get(payload.id);
    } else if (payload.name !== undefined && payload.user) {
      cred = appCreds.listForUser(this.findUser(payload.user).id, payload.name)[0];
    } else {
      throw ksErrors.badRequest("Invalid input for field 'application_credential': 'id' or 'name' and 'user' are required.");
    }
    if (!cred || !(await appCreds.verifySecret(cred, payload.secret))) throw ksErrors.unauthorized();
    if (appCreds.isExpired(cred, this.state.now())) throw ksErrors.unauthorized();
    const user = this.state.users.get(cred.userId);
    if (!user?.enabled) throw ksErrors.unauthorized();
    return {
      user,
      appCredId: cred.id,
      appCredProjectId: cred.projectId,
      ...(cred.expiresAt !== null ? { expiresAt: cred.expiresAt } : {}),
    };
  }

  private scopeRequest(r: Resolved, scopeReq: ScopeRequest, methods: string[]): IssueRequest {
    const base = { userId: r.user.id };
    if (r.appCredProjectId !== undefined) {
      if (scopeReq !== undefined) throw ksErrors.unauthorized();
      return { ...base, methods, scope: { kind: 'project', id: r.appCredProjectId }, appCredId: r.appCredId, expiresAt: r.expiresAt };
    }
    const source = r.source;
    if (source) {
      const fromAppCred = source.payload.appCredId;
      if (fromAppCred !== undefined && scopeReq !== undefined) {
        throw ksErrors.forbidden('Application credential tokens cannot request a scope.');
      }
      const chained = {
        ...base,
        methods: ['token', ...source.payload.methods.filter((m) => m !== 'token' && !methods.includes(m))],
        expiresAt: source.payload.expiresAt,
        parentAuditIds: source.payload.auditIds,
      };
      if (fromAppCred !== undefined) return { ...chained, scope: source.payload.scope, appCredId: fromAppCred };
      return { ...chained, scope: this.resolveScope(r.user, scopeReq) };
    }
    return { ...base, methods, scope: this.resolveScope(r.user, scopeReq) };
  }

  /** The requested scope, the user's default project when omitted, or undefined for unscoped. */
  private resolveScope(user: User, req: ScopeRequest): Scope | undefined {
    if (req === undefined) return this.defaultScope(user);
    if (req === 'unscoped') return undefined;
    const keys = (['project', 'domain', 'system', 'unscoped', 'OS-TRUST:trust'] as const).filter((k) => req[k] !== undefined);
    if (keys.length !== 1) {
      throw ksErrors.badRequest('Expecting to find project, domain, system, OS-TRUST:trust or unscoped in scope.');
    }
    if (req.unscoped !== undefined) return undefined;
    if (req['OS-TRUST:trust']) throw ksErrors.unauthorized(); // trusts are not simulated
    if (req.system) {
      if (req.system.all !== true) throw ksErrors.badRequest("Invalid input for field 'system': only {\"all\": true} is supported.");
      return { kind: 'system', id: 'all' };
    }
    if (req.domain) {
      if (req.domain.id === undefined && req.domain.name === undefined) throw ksErrors.badRequest('Expecting to find id or name in domain.');
      const domain = this.state.findDomain(req.domain);
      if (!domain?.enabled) throw ksErrors.unauthorized();
      return { kind: 'domain', id: domain.id };
    }
    const p = req.project;
    if (!p) throw ksErrors.badRequest('Expecting to find project in scope.');
    if (p.id === undefined && p.name === undefined) throw ksErrors.badRequest('Expecting to find id or name in project.');
    const project =
      p.id !== undefined
        ? this.state.projects.get(p.id)
        : p.name !== undefined
          ? this.state.findProjectByName(p.name, this.domainOf(p.domain, 'project'))
          : undefined;
    if (!project?.enabled) throw ksErrors.unauthorized();
    return { kind: 'project', id: project.id };
  }

  /** Keystone falls back to an unscoped token when the default project is unusable. */
  private defaultScope(user: User): Scope | undefined {
    const id = user.defaultProjectId;
    const project = id === undefined ? undefined : this.state.projects.get(id);
    if (!project?.enabled) return undefined;
    const scope: Scope = { kind: 'project', id: project.id };
    return this.state.effectiveRoleIds(user.id, scope).length > 0 ? scope : undefined;
  }
}
