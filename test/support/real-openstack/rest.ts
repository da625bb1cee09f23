// A small REST client for the harness's own set-up calls (and tests that want one): a password login to
// Keystone and JSON calls with that token, the error naming the call and quoting the answer.

export interface Credentials {
  name: string;
  password: string;
  project: string;
  domain: 'Default';
}

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

export async function call(
  method: string,
  target: string,
  opts: { token?: string; body?: unknown; raw?: Uint8Array; contentType?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
  if (opts.token) headers['x-auth-token'] = opts.token;
  let body: Uint8Array | string | undefined;
  if (opts.raw) {
    headers['content-type'] = opts.contentType ?? 'application/octet-stream';
    body = opts.raw;
  } else if (opts.body !== undefined) {
    headers['content-type'] = opts.contentType ?? 'application/json';
    body = JSON.stringify(opts.body);
  }
  const res = await fetch(target, { method, headers, body, signal: AbortSignal.timeout(60_000) });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // Glance's 404s and some errors are text
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

/** `call`, failing unless the status is one of `ok`. */
export async function expect(method: string, target: string, ok: number[], opts: Parameters<typeof call>[2] = {}): Promise<Answer> {
  const res = await call(method, target, opts);
  if (!ok.includes(res.status)) {
    const body = typeof res.body === 'string' ? res.body : JSON.stringify(res.body);
    throw new Error(`${method} ${target} answered ${res.status} (expected ${ok.join(' or ')}): ${body.slice(0, 2000)}`);
  }
  return res;
}

/** A project-scoped password login: the token id and the token body (with the catalog). */
export async function login(authUrl: string, who: Credentials): Promise<{ token: string; body: any }> {
  const res = await expect('POST', `${authUrl}/auth/tokens`, [201], {
    body: {
      auth: {
        identity: { methods: ['password'], password: { user: { name: who.name, domain: { name: who.domain }, password: who.password } } },
        scope: { project: { name: who.project, domain: { name: who.domain } } },
      },
    },
  });
  const token = res.headers.get('x-subject-token');
  if (!token) throw new Error('Keystone issued a token without X-Subject-Token');
  return { token, body: res.body };
}

/** A JSON client bound to one token that logs in again when the token is refused. */
export class Session {
  private token?: Promise<string>;

  constructor(readonly authUrl: string, readonly who: Credentials) {}

  /** The session's token (one login shared by concurrent callers). */
  authToken(): Promise<string> {
    this.token ??= login(this.authUrl, this.who).then((r) => r.token);
    this.token.catch(() => { this.token = undefined; });
    return this.token;
  }

  async call(method: string, target: string, opts: Omit<Parameters<typeof call>[2] & object, 'token'> = {}): Promise<Answer> {
    const used = this.authToken();
    const res = await call(method, target, { ...opts, token: await used });
    if (res.status !== 401) return res;
    if (this.token === used) this.token = undefined;
    return call(method, target, { ...opts, token: await this.authToken() });
  }

  async expect(method: string, target: string, ok: number[], opts: Omit<Parameters<typeof call>[2] & object, 'token'> = {}): Promise<Answer> {
    const res = await this.call(method, target, opts);
    if (!ok.includes(res.status)) {
      const body = typeof res.body === 'string' ? res.body : JSON.stringify(res.body);
      throw new Error(`${method} ${target} answered ${res.status} (expected ${ok.join(' or ')}): ${body.slice(0, 2000)}`);
    }
    return res;
  }
}
