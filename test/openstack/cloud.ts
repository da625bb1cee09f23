// The simulated cloud for the client tests: Keystone and every service on loopback, logins of
// the built-in users, sessions recording their calls, and a fast retry policy.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { CloudSims } from '../../cloudsim/cloud.js';
import { BUILTIN_USERS } from '../../cloudsim/embedded.js';
import type { KeystoneSim } from '../../cloudsim/keystone/index.js';
import { contextFromToken, type AuthContext } from '../../src/keystone/context.js';
import { sessionFor, type CallRecord, type Session, type SessionOptions } from '../../src/openstack/http.js';
import type { RetryPolicy } from '../../src/openstack/retry.js';
import { startKeystone, startSims, type User } from '../support/app.js';

/** Retries in milliseconds, not seconds: the same shape as the default, scaled down. */
export const FAST_RETRY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 20, multiplier: 2, maxDelayMs: 200, jitter: 0.5, budgetMs: 5000 };

export interface Login {
  token: string;
  context: AuthContext;
}

export interface Cloud {
  keystone: KeystoneSim;
  sims: CloudSims;
  authUrl: string;
  login(user: User): Promise<Login>;
  /** A session of `type` for `user`; its calls are pushed onto `calls` when given. */
  session(user: User, type: string, opts?: { calls?: CallRecord[] } & Partial<SessionOptions>): Promise<Session>;
  projectId(name: string): string;
  close(): Promise<void>;
}

export async function startCloud(): Promise<Cloud> {
  const keystone = await startKeystone();
  const sims = await startSims(keystone);
  const authUrl = `http://127.0.0.1:${(keystone.app.server.address() as AddressInfo).port}/v3`;
  const login = async (user: User): Promise<Login> => {
    const res = await keystone.app.inject({
      method: 'POST',
      url: '/v3/auth/tokens',
      payload: {
        auth: {
          identity: { methods: ['password'], password: { user: { name: user, domain: { id: 'default' }, password: BUILTIN_USERS[user].password } } },
          scope: { project: { name: BUILTIN_USERS[user].project, domain: { id: 'default' } } },
        },
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    return { token: res.headers['x-subject-token'] as string, context: contextFromToken(res.json()) };
  };
  return {
    keystone,
    sims,
    authUrl,
    login,
    async session(user, type, opts = {}) {
      const { calls, ...rest } = opts;
      const { token, context } = await login(user);
      return sessionFor(context.catalog, token, type, { timeoutMs: 5000, ...rest, ...(calls ? { log: (c) => calls.push(c) } : {}) });
    },
    projectId: (name) => keystone.state.projectId(name),
    async close() {
      await sims.close();
      await keystone.app.close();
    },
  };
}

/** The statuses of the recorded attempts of one operation, in order. */
export const statuses = (calls: CallRecord[], operation?: string): number[] =>
  calls.filter((c) => operation === undefined || c.operation === operation).map((c) => c.status);
