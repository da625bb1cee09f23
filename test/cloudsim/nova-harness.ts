// A Keystone emulator plus the simulated cloud (a server boots in ~40 ms at timeScale 0.001), and
// a small JSON client for the Nova tests: microversion per call, fault-envelope checks, a private
// network with a subnet per project, and polling for a server status.
import assert from 'node:assert/strict';
import type { CloudSims } from '../../cloudsim/cloud.js';
import { BUILTIN_USERS } from '../../cloudsim/embedded.js';
import type { KeystoneSim } from '../../cloudsim/keystone/index.js';
import { passwordToken, startKeystone, startSims } from '../support/app.js';
import { waitFor } from '../support/http.js';
import { assertFreshIndexes } from './fresh-indexes.js';

export interface Reply {
  status: number;
  headers: Headers;
  // JSON of many shapes: the asserts check it.
  body: any;
}

export type Who = 'demo' | 'other' | 'admin' | 'demo-reader';

export interface NovaHarness {
  keystone: KeystoneSim;
  sims: CloudSims;
  tokens: Record<Who, string>;
  projects: Record<Who, string>;
  /** A call to Nova (path under /v2.1) at microversion `version` (none: no header, i.e. 2.1). */
  call(method: string, path: string, who: Who, body?: unknown, version?: string): Promise<Reply>;
  /** A call that must answer `status`; returns the body. */
  ok(status: number, method: string, path: string, who: Who, body?: unknown, version?: string): Promise<any>;
  /** A call that must fail with `status` in Nova's envelope under `fault`; returns the message. */
  fails(status: number, fault: string, method: string, path: string, who: Who, body?: unknown, version?: string): Promise<string>;
  /** A project network with one /24 subnet (created once per project and name). */
  network(who: Who, name?: string): { id: string; subnetId: string; name: string };
  /** The id of an active public image (cirros). */
  image(): string;
  /** POST /servers with sensible defaults (m1.small, cirros, the project's network); returns the server id. */
  boot(who: Who, server?: Record<string, unknown>, version?: string, hints?: Record<string, unknown>): Promise<string>;
  /** Polls GET /servers/{id} until `status`; returns the server. */
  until(id: string, status: string, who?: Who, version?: string): Promise<any>;
  /** Polls until GET /servers/{id} is 404. */
  gone(id: string, who?: Who): Promise<void>;
  close(): Promise<void>;
}

export async function startNovaHarness(): Promise<NovaHarness> {
  const keystone = await startKeystone();
  const sims = await startSims(keystone);
  const users: Who[] = ['demo', 'other', 'admin', 'demo-reader'];
  const tokens = {} as Record<Who, string>;
  for (const u of users) tokens[u] = await passwordToken(keystone, u, BUILTIN_USERS[u].password, BUILTIN_USERS[u].project);
  const projects = {} as Record<Who, string>;
  for (const u of users) projects[u] = [...keystone.state.projects.values()].find((p) => p.name === BUILTIN_USERS[u].project)!.id;
  const networks = new Map<string, { id: string; subnetId: string; name: string }>();
  let cidr = 10;

  const call = async (method: string, path: string, who: Who, body?: unknown, version?: string): Promise<Reply> => {
    const res = await fetch(`${sims.urls.compute}${path}`, {
      method,
      headers: {
        accept: 'application/json',
        'x-auth-token': tokens[who],
        ...(version ? { 'openstack-api-version': `compute ${version}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  };
  const ok = async (status: number, method: string, path: string, who: Who, body?: unknown, version?: string) => {
    const r = await call(method, path, who, body, version);
    assert.equal(r.status, status, `${method} ${path}: ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const h: NovaHarness = {
    keystone,
    sims,
    tokens,
    projects,
    call,
    ok,
    async fails(status, fault, method, path, who, body, version) {
      const r = await call(method, path, who, body, version);
      assert.equal(r.status, status, `${method} ${path}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body?.[fault]?.code, status, JSON.stringify(r.body));
      return r.body[fault].message as string;
    },
    network(who, name = 'private') {
      const key = `${who}/${name}`;
      const found = networks.get(key);
      if (found) return found;
      const n = sims.neutron.state.addNetwork({ name, projectId: projects[who] });
      const block = cidr++;
      const s = sims.neutron.state.addSubnet({
        networkId: n.id,
        projectId: projects[who],
        name: `${name}-subnet`,
        cidr: `10.${block}.0.0/24`,
        gatewayIp: `10.${block}.0.1`,
        allocationPools: [{ start: `10.${block}.0.2`, end: `10.${block}.0.254` }],
      });
      const net = { id: n.id, subnetId: s.id, name };
      networks.set(key, net);
      return net;
    },
    image() {
      return [...sims.glance.state.images.values()].find((i) => i.name === 'cirros')!.id;
    },
    async boot(who, server = {}, version, hints) {
      const body = {
        server: { name: 'vm', flavorRef: '2', imageRef: h.image(), networks: [{ uuid: h.network(who).id }], ...server },
        ...(hints ? { 'os:scheduler_hints': hints } : {}),
      };
      const r = await ok(202, 'POST', '/servers', who, body, version);
      return r.server.id as string;
    },
    async until(id, status, who = 'demo', version) {
      const r = await waitFor(() => call('GET', `/servers/${id}`, who, undefined, version), (x) => x.body?.server?.status === status);
      return r.body.server;
    },
    async gone(id, who = 'demo') {
      await waitFor(() => call('GET', `/servers/${id}`, who), (x) => x.status === 404);
    },
    async close() {
      assertFreshIndexes(sims);
      await sims.close();
      await keystone.app.close();
    },
  };
  return h;
}
