// Shared helpers for the Keystone emulator tests: a controllable clock, logins and validations via inject().
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { createKeystoneSim, type KeystoneSim, type KeystoneSimOptions } from '../../../cloudsim/keystone/index.js';

export const PASSWORDS = {
  admin: 'admin-secret',
  demo: 'demo-secret',
  'demo-reader': 'reader-secret',
  other: 'other-secret',
  magnum: 'magnum-secret',
} as const;
export type BuiltinUser = keyof typeof PASSWORDS;

export const PUBLIC_URL = 'http://keystone.test:5000';

export class Clock {
  constructor(public ms = Date.now()) {}
  readonly now = (): number => this.ms;
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
}

export async function sim(opts: Partial<KeystoneSimOptions> = {}): Promise<KeystoneSim> {
  return createKeystoneSim({ publicUrl: PUBLIC_URL, ...opts });
}

export const projectScope = (name: string) => ({ project: { name, domain: { id: 'default' } } });

export function passwordIdentity(user: string, password: string) {
  return { methods: ['password'], password: { user: { name: user, domain: { name: 'Default' }, password } } };
}

export interface Issued {
  res: LightMyRequestResponse;
  token: string;
  body: { token: Record<string, any> };
}

/** POST /v3/auth/tokens with any auth object; asserts nothing. */
export async function issueRaw(ks: KeystoneSim, auth: unknown, query = ''): Promise<LightMyRequestResponse> {
  return ks.app.inject({ method: 'POST', url: `/v3/auth/tokens${query}`, payload: { auth } });
}

/** Password login; `scope` undefined means "omitted". Asserts 201. */
export async function login(
  ks: KeystoneSim,
  user: BuiltinUser | string,
  scope?: unknown,
  opts: { password?: string; query?: string } = {},
): Promise<Issued> {
  const password = opts.password ?? PASSWORDS[user as BuiltinUser];
  const auth = { identity: passwordIdentity(user, password), ...(scope !== undefined ? { scope } : {}) };
  const res = await issueRaw(ks, auth, opts.query ?? '');
  assert.equal(res.statusCode, 201, res.body);
  const token = res.headers['x-subject-token'];
  assert.equal(typeof token, 'string');
  return { res, token: token as string, body: res.json() };
}

/** A project-scoped token for a built-in user on the given project (default: the user's own). */
export async function tokenFor(ks: KeystoneSim, user: BuiltinUser, project?: string): Promise<string> {
  const own: Record<BuiltinUser, string> = { admin: 'admin', demo: 'demo', 'demo-reader': 'demo', other: 'other', magnum: 'service' };
  return (await login(ks, user, projectScope(project ?? own[user]))).token;
}

export async function validate(
  ks: KeystoneSim,
  caller: string | undefined,
  subject: string | undefined,
  opts: { method?: 'GET' | 'HEAD'; query?: string } = {},
): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = {};
  if (caller !== undefined) headers['x-auth-token'] = caller;
  if (subject !== undefined) headers['x-subject-token'] = subject;
  return ks.app.inject({ method: opts.method ?? 'GET', url: `/v3/auth/tokens${opts.query ?? ''}`, headers });
}

export async function api(
  ks: KeystoneSim,
  token: string | undefined,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD',
  url: string,
  payload?: unknown,
): Promise<LightMyRequestResponse> {
  return ks.app.inject({
    method,
    url,
    headers: token === undefined ? {} : { 'x-auth-token': token },
    ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}),
  });
}

export const roleNames = (body: { token: Record<string, any> }): string[] =>
  (body.token.roles as { name: string }[]).map((r) => r.name).sort();

export const ISO_MICRO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

export function assertKeystoneError(res: LightMyRequestResponse, code: number): void {
  assert.equal(res.statusCode, code, res.body);
  const body = res.json();
  assert.equal(body.error.code, code);
  assert.equal(typeof body.error.title, 'string');
  assert.equal(typeof body.error.message, 'string');
  if (code === 401) assert.equal(res.headers['www-authenticate'], `Keystone uri="${PUBLIC_URL}/v3"`);
}
