// The portal's calls to Keystone, made by the API server for a browser session (src/api/portal): log in by password
// or application credential, rescope to another of the user's projects, list those projects,
// and revoke a token at logout. Tokens stay on the server; nothing here logs one.
import { callJson, UnreachableError } from './http.js';
import { errors } from '../domain/errors.js';

export interface IssuedToken {
  token: string;
  /** Epoch ms. */
  expiresAt: number;
  user: { id: string; name: string; domainId: string | null };
  project: { id: string; name: string; domainId: string | null } | null;
  roles: string[];
}

export interface ProjectRef {
  id: string;
  name: string;
  domain_id: string | null;
}

export type LoginRequest =
  | { method: 'password'; username: string; password: string; userDomain: string; project?: string | undefined; projectDomain?: string | undefined }
  | { method: 'application_credential'; id: string; secret: string };

interface TokenBody {
  token: {
    expires_at: string;
    user: { id: string; name: string; domain?: { id: string } };
    project?: { id: string; name: string; domain?: { id: string } };
    roles?: { name: string }[];
  };
}

/** A domain given by name or by id: Keystone's `default` id and `Default` name both work. */
const domainRef = (d: string) => (/^[0-9a-f]{32}$/.test(d) || d === 'default' ? { id: d } : { name: d });

export class PortalKeystone {
  constructor(
    private readonly authUrl: string,
    private readonly timeoutMs: number,
  ) {}

  private async issue(auth: unknown): Promise<IssuedToken | undefined> {
    let res;
    try {
      res = await callJson(`${this.authUrl}/auth/tokens?nocatalog`, { method: 'POST', timeoutMs: this.timeoutMs, body: { auth } });
    } catch (e) {
      if (e instanceof UnreachableError) throw errors.keystoneUnavailable();
      throw e;
    }
    const token = res.headers.get('x-subject-token');
    if (res.status !== 201 || !token) return undefined;
    const t = (res.body as TokenBody).token;
    return {
      token,
      expiresAt: Date.parse(t.expires_at),
      user: { id: t.user.id, name: t.user.name, domainId: t.user.domain?.id ?? null },
      project: t.project ? { id: t.project.id, name: t.project.name, domainId: t.project.domain?.id ?? null } : null,
      roles: (t.roles ?? []).map((r) => r.name.toLowerCase()),
    };
  }

  /** The login's token: project-scoped when a project is named (or by an application credential), unscoped otherwise. */
  async login(req: LoginRequest): Promise<IssuedToken | undefined> {
    if (req.method === 'application_credential') {
      return this.issue({ identity: { methods: ['application_credential'], application_credential: { id: req.id, secret: req.secret } } });
    }
    const identity = {
      methods: ['password'],
      password: { user: { name: req.username, domain: domainRef(req.userDomain), password: req.password } },
    };
    const scope = req.project ? { project: { name: req.project, domain: domainRef(req.projectDomain || req.userDomain) } } : undefined;
    return this.issue(scope ? { identity, scope } : { identity });
  }

  /** A token of the same user scoped to `projectId`, from one it holds (method `token`; Keystone keeps the expiry). */
  rescope(held: string, projectId: string): Promise<IssuedToken | undefined> {
    return this.issue({ identity: { methods: ['token'], token: { id: held } }, scope: { project: { id: projectId } } });
  }

  /** GET /v3/auth/projects: the projects the token's user may scope to. */
  async projects(token: string): Promise<ProjectRef[]> {
    try {
      const res = await callJson(`${this.authUrl}/auth/projects`, { method: 'GET', timeoutMs: this.timeoutMs, headers: { 'x-auth-token': token } });
      if (res.status !== 200) return [];
      const list = (res.body as { projects?: { id: string; name: string; domain_id?: string; enabled?: boolean }[] }).projects ?? [];
      return list.filter((p) => p.enabled !== false).map((p) => ({ id: p.id, name: p.name, domain_id: p.domain_id ?? null }));
    } catch (e) {
      if (e instanceof UnreachableError) throw errors.keystoneUnavailable();
      throw e;
    }
  }

  /** DELETE /v3/auth/tokens with the token itself (a user may revoke their own); true when Keystone no longer knows it. */
  async revoke(token: string): Promise<boolean> {
    try {
      const res = await callJson(`${this.authUrl}/auth/tokens`, {
        method: 'DELETE',
        timeoutMs: this.timeoutMs,
        headers: { 'x-auth-token': token, 'x-subject-token': token },
      });
      return res.status === 204 || res.status === 404 || res.status === 401;
    } catch {
      return false;
    }
  }
}
