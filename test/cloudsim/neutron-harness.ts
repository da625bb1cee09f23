// A Keystone emulator plus the simulated cloud, and a small JSON client for the Neutron tests.
import assert from 'node:assert/strict';
import type { CloudSims } from '../../cloudsim/cloud.js';
import { BUILTIN_USERS } from '../../cloudsim/embedded.js';
import type { KeystoneSim } from '../../cloudsim/keystone/index.js';
import { passwordToken, startKeystone, startSims } from '../support/app.js';
import { assertFreshIndexes } from './fresh-indexes.js';

export interface Reply {
  status: number;
  // JSON of many shapes: the asserts check it.
  body: any;
}

export interface Harness {
  keystone: KeystoneSim;
  sims: CloudSims;
  /** Tokens of demo, other (another project) and admin. */
  tokens: { demo: string; other: string; admin: string };
  call(method: string, path: string, token: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  /** A call that must answer `status`; returns the body. */
  ok(status: number, method: string, path: string, token: string, body?: unknown): Promise<any>;
  /** A call that must fail with `status` and the NeutronError `type`; returns the message. */
  fails(status: number, type: string, method: string, path: string, token: string, body?: unknown): Promise<string>;
  publicNet(): string;
  close(): Promise<void>;
}

export async function startHarness(): Promise<Harness> {
  const keystone = await startKeystone();
  const sims = await startSims(keystone);
  const token = (u: 'demo' | 'other' | 'admin') => passwordToken(keystone, u, BUILTIN_USERS[u].password, BUILTIN_USERS[u].project);
  const tokens = { demo: await token('demo'), other: await token('other'), admin: await token('admin') };
  const call = async (method: string, path: string, tok: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> => {
    const res = await fetch(`${sims.urls.network}${path}`, {
      method,
      headers: { accept: 'application/json', 'x-auth-token': tok, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  return {
    keystone,
    sims,
    tokens,
    call,
    async ok(status, method, path, tok, body) {
      const r = await call(method, path, tok, body);
      assert.equal(r.status, status, `${method} ${path}: ${JSON.stringify(r.body)}`);
      return r.body;
    },
    async fails(status, type, method, path, tok, body) {
      const r = await call(method, path, tok, body);
      assert.equal(r.status, status, `${method} ${path}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body?.NeutronError?.type, type, JSON.stringify(r.body));
      return r.body.NeutronError.message as string;
    },
    publicNet: () => [...sims.neutron.state.networks.values()].find((n) => n.name === 'public')!.id,
    async close() {
      assertFreshIndexes(sims);
      await sims.close();
      await keystone.app.close();
    },
  };
}
