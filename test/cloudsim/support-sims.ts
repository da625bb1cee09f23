// One cloud of simulators with demo's token, for the tests of one service's routes.
import { after, before } from 'node:test';
import type { CloudSims } from '../../cloudsim/cloud.js';
import { BUILTIN_USERS } from '../../cloudsim/embedded.js';
import type { KeystoneSim } from '../../cloudsim/keystone/index.js';
import { passwordToken, startKeystone, startSims } from '../support/app.js';

export interface SimsUnderTest {
  keystone: KeystoneSim;
  sims: CloudSims;
  /** demo's project-scoped token. */
  demo: string;
}

/** Starts the cloud before the file's tests and closes it after; the object is filled in `before`. */
export function withSims(): SimsUnderTest {
  const t = {} as SimsUnderTest;
  before(async () => {
    t.keystone = await startKeystone();
    t.sims = await startSims(t.keystone);
    t.demo = await passwordToken(t.keystone, 'demo', BUILTIN_USERS.demo.password, 'demo');
  });
  after(async () => {
    await t.sims?.close();
    await t.keystone?.app.close();
  });
  return t;
}

/** A GET with JSON asked for: the status, content type and parsed body (text when not JSON). */
export async function getJson(url: string, token?: string, headers: Record<string, string> = {}): Promise<{ status: number; type: string; body: any }> {
  const res = await fetch(url, { headers: { accept: 'application/json', ...(token ? { 'x-auth-token': token } : {}), ...headers } });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* text */
  }
  return { status: res.status, type: res.headers.get('content-type') ?? '', body };
}
