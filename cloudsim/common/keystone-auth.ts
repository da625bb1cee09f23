// keystonemiddleware as the simulated services run it (spec openstack-apis §1.3): every incoming
// X-Auth-Token is validated by Keystone's GET /v3/auth/tokens with the service's own token, or,
// with the Keystone emulator in the same process (cloud.ts), by the emulator's own validation in
// process: the same answer from the same state, without an HTTP hop per call.
// Unlike the real middleware nothing is cached, so a revocation takes effect on the next call, and
// no OpenStack-Identity-Access-Rules header is sent: Keystone refuses tokens of application
// credentials with access rules to such a service (stricter than a real one, which enforces them).

export interface ServiceCredentials {
  username: string;
  password: string;
  projectName: string;
  /** Default 'Default'. */
  userDomainName?: string;
  /** Default 'Default'. */
  projectDomainName?: string;
}

export interface KeystoneAuthOptions {
  /** Keystone v3 URL, ending in /v3. */
  authUrl: string;
  credentials: ServiceCredentials;
  /** Per call to Keystone; default 10 s. */
  timeoutMs?: number;
  /**
   * The Keystone emulator of this process, asked in process (KeystoneSim.callerOf): what GET /v3/auth/tokens
   * would answer, from its state as it is now; it throws KeystoneUnavailable when the emulator is stopped.
   */
  inProcess?: (token: string) => Promise<SimCaller | undefined>;
}

/** The caller of a simulated service, as Keystone describes the token now. */
export interface SimCaller {
  userId: string;
  /** Undefined for domain-, system- or unscoped tokens. */
  projectId: string | undefined;
  roles: string[];
  isAdmin: boolean;
}

export class KeystoneUnavailable extends Error {}

interface TokenBody {
  token: { user: { id: string }; project?: { id: string }; roles?: { name: string }[] };
}

export class KeystoneAuth {
  private serviceToken: Promise<string> | undefined;
  readonly authUrl: string;

  constructor(private readonly opts: KeystoneAuthOptions) {
    this.authUrl = opts.authUrl.replace(/\/+$/, '');
  }

  /** The caller behind `token`, or undefined when Keystone says the token is not valid. */
  async validate(token: string): Promise<SimCaller | undefined> {
    if (token === '') return undefined;
    if (this.opts.inProcess) return this.opts.inProcess(token);
    for (let attempt = 0; attempt < 2; attempt++) {
      const service = await this.token();
      const res = await this.call('GET', '/auth/tokens?nocatalog', { 'x-auth-token': service, 'x-subject-token': token });
      if (res.status === 200) {
        const t = ((await res.json()) as TokenBody).token;
        const roles = (t.roles ?? []).map((r) => r.name.toLowerCase());
        return { userId: t.user.id, projectId: t.project?.id, roles, isAdmin: roles.includes('admin') };
      }
      await res.body?.cancel();
      if (res.status === 404) return undefined;
      if (res.status === 401 && attempt === 0) {
        this.serviceToken = undefined; // our own token expired or was revoked: log in again once
        continue;
      }
      throw new KeystoneUnavailable(`token validation answered HTTP ${res.status}`);
    }
    throw new KeystoneUnavailable('the service credentials are refused');
  }

  private token(): Promise<string> {
    this.serviceToken ??= this.login().catch((e: unknown) => {
      this.serviceToken = undefined;
      throw e;
    });
    return this.serviceToken;
  }

  private async login(): Promise<string> {
    const res = await this.call('POST', '/auth/tokens?nocatalog', { 'content-type': 'application/json' }, JSON.stringify(passwordAuthBody(this.opts.credentials)));
    await res.body?.cancel();
    const value = res.headers.get('x-subject-token');
    if (res.status !== 201 || !value) throw new KeystoneUnavailable(`service login refused (HTTP ${res.status})`);
    return value;
  }

  private async call(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Response> {
    try {
      return await fetch(`${this.authUrl}${path}`, {
        method,
        headers: { accept: 'application/json', ...headers },
        body,
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 10_000),
      });
    } catch (e) {
      throw new KeystoneUnavailable(`Keystone unreachable: ${(e as Error).message}`);
    }
  }
}

/** The project-scoped password login of a service user (POST /v3/auth/tokens). */
export function passwordAuthBody(c: ServiceCredentials) {
  return {
    auth: {
      identity: {
        methods: ['password'],
        password: { user: { name: c.username, domain: { name: c.userDomainName ?? 'Default' }, password: c.password } },
      },
      scope: { project: { name: c.projectName, domain: { name: c.projectDomainName ?? 'Default' } } },
    },
  };
}
