// The simulators check JSON bodies against openapi/openstack/<service>.yaml: a field of the wrong
// type is a 400 in the service's own envelope naming the field, a valid body goes through, and
// every documented operation with a body is served by some route of its simulator.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { startCloudSims, type CloudSims } from '../../cloudsim/cloud.js';
import { requestSchemasOf } from '../../cloudsim/common/service-app.js';
import { BUILTIN_USERS, SERVICE_USER } from '../../cloudsim/embedded.js';
import type { KeystoneSim } from '../../cloudsim/keystone/index.js';
import { passwordToken, startKeystone } from '../support/app.js';
import { call } from '../support/http.js';
import { assertFreshIndexes } from './fresh-indexes.js';

let keystone: KeystoneSim;
let sims: CloudSims;
let demo: string;

before(async () => {
  keystone = await startKeystone();
  sims = await startCloudSims({
    keystone,
    authUrl: `http://127.0.0.1:${(keystone.app.server.address() as AddressInfo).port}/v3`,
    credentials: { username: SERVICE_USER.username, password: SERVICE_USER.password, projectName: SERVICE_USER.project },
    host: '127.0.0.1',
    clock: { timeScale: 0.001, seed: 11 },
  });
  demo = await passwordToken(keystone, 'demo', BUILTIN_USERS.demo.password, 'demo');
});
after(async () => {
  assertFreshIndexes(sims);
  await sims.close();
  await keystone.app.close();
});

const subnetId = (): string => sims.neutron.state.subnets.values().next().value!.id;
const projectOf = (): string => [...keystone.state.projects.values()].find((p) => p.name === 'demo')!.id;
const cinderUrl = (): string => sims.urls['block-storage'].replace('%(project_id)s', projectOf());

interface Case {
  service: 'nova' | 'neutron' | 'octavia' | 'cinder' | 'designate';
  /** The URL of the operation (built once the sims listen). */
  url: () => string | Promise<string>;
  method?: string;
  headers?: Record<string, string>;
  valid: unknown;
  validStatus: number;
  invalid: unknown;
  /** The error as the service renders it. */
  error: (body: any) => unknown;
  expected: unknown;
}

const CASES: Case[] = [
  {
    service: 'nova',
    url: () => `${sims.urls.compute}/os-server-groups`,
    headers: { 'openstack-api-version': 'compute 2.64' },
    valid: { server_group: { name: 'g', policy: 'anti-affinity' } },
    validStatus: 200,
    invalid: { server_group: { name: 7, policy: 'anti-affinity' } },
    error: (b) => b,
    expected: { badRequest: { code: 400, message: "Invalid input for field/attribute name. Value: 7. 7 is not of type 'string'" } },
  },
  {
    service: 'neutron',
    url: () => `${sims.urls.network}/v2.0/networks`,
    valid: { network: { name: 'n' } },
    validStatus: 201,
    invalid: { network: { name: 'n', admin_state_up: 'yes' } },
    error: (b) => b,
    expected: { NeutronError: { type: 'HTTPBadRequest', message: "Invalid input for admin_state_up. Reason: 'yes' is not a valid boolean value.", detail: '' } },
  },
  {
    service: 'octavia',
    url: () => `${sims.urls['load-balancer']}/v2/lbaas/loadbalancers`,
    valid: { loadbalancer: { vip_subnet_id: '' } },
    validStatus: 201,
    invalid: { loadbalancer: { vip_subnet_id: '', name: 7 } },
    error: (b) => b,
    expected: { faultcode: 'Client', faultstring: "Invalid input for field/attribute name. Value: '7'. Wrong type. Expected '<class 'str'>', got 'number'", debuginfo: null },
  },
  {
    service: 'cinder',
    url: () => `${cinderUrl()}/volumes`,
    valid: { volume: { size: 1, name: 'v' } },
    validStatus: 202,
    invalid: { volume: { size: 1, name: ['v'] } },
    error: (b) => b,
    expected: { badRequest: { code: 400, message: "Invalid input for field/attribute name. Value: ['v']. ['v'] is not of type 'string', 'null'" } },
  },
  {
    service: 'designate',
    url: async () => {
      const zone = await call('POST', `${sims.urls.dns}/v2/zones`, demo, { name: 'schema.example.org.', email: 'admin@example.org' });
      assert.equal(zone.status, 202, JSON.stringify(zone.body));
      return `${sims.urls.dns}/v2/zones/${zone.body.id}/recordsets`;
    },
    valid: { name: 'www.schema.example.org.', type: 'A', records: ['192.0.2.1'], ttl: 300 },
    validStatus: 202,
    invalid: { name: 'api.schema.example.org.', type: 'A', records: ['192.0.2.2'], ttl: '300' },
    error: (b) => [b.code, b.type, b.message, b.errors.errors],
    expected: [400, 'invalid_object', 'Provided object does not match schema', [{ path: ['ttl'], message: "'300' is not of type 'integer', 'null'", validator: 'type' }]],
  },
];

describe('request bodies against the OpenAPI documents', () => {
  for (const c of CASES) {
    test(`${c.service}: a field of the wrong type is a 400 in the service's envelope; a valid body passes`, async () => {
      const url = await c.url();
      const fill = (body: unknown) => JSON.parse(JSON.stringify(body).replace('"vip_subnet_id":""', `"vip_subnet_id":"${subnetId()}"`));
      const bad = await call(c.method ?? 'POST', url, demo, fill(c.invalid), c.headers);
      assert.equal(bad.status, 400, JSON.stringify(bad.body));
      assert.deepEqual(c.error(bad.body), c.expected);
      const good = await call(c.method ?? 'POST', url, demo, fill(c.valid), c.headers);
      assert.equal(good.status, c.validStatus, JSON.stringify(good.body));
    });
  }

  test('every documented operation with a JSON body is served by a route of its simulator', () => {
    for (const service of ['nova', 'neutron', 'octavia', 'cinder', 'designate'] as const) {
      const schemas = requestSchemasOf(sims[service].app);
      assert.ok(schemas, `${service} checks its bodies`);
      assert.deepEqual(schemas.unserved(), [], service);
    }
  });

  test('the check follows the token: no token is still the middleware 401', async () => {
    const r = await call('POST', `${sims.urls.network}/v2.0/networks`, undefined, { network: { name: 7 } });
    assert.equal(r.status, 401);
  });
});
