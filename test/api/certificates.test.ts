// Certificates through the API (spec §3.5, §5.3, §6): show the CA, sign a CSR, rotate the CAs,
// for admin, the cluster's creator (demo), a reader of its project and another project.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/api/app.js';
import { createServices } from '../../src/api/services.js';
import { ClusterEntity } from '../../src/db/entities/cluster.js';
import { OperationEntity } from '../../src/db/entities/operation.js';
import { insertCluster, type InsertClusterOptions, type InsertedCluster } from '../support/cluster-fixture.js';
import { testApp, type TestApp, type User } from '../support/app.js';
import { opensslCsr, opensslText, opensslVerify } from '../pki/openssl.js';
import { createOperation } from '../../workers/cluster/create.js';

let t: TestApp;
let ids: Record<'demoUser' | 'demoProject' | 'adminProject' | 'otherUser' | 'otherProject', string>;
/** Created by demo in project demo. */
let mine: InsertedCluster;
/** In project demo, created by someone else. */
let peer: InsertedCluster;
/** In the admin's project, created by someone else. */
let adminOwn: InsertedCluster;
let csr: string;

const err = (r: LightMyRequestResponse) => (r.json() as { errors: { detail: string; status: number; code: string }[] }).errors[0]!;
const cluster = (o: Partial<InsertClusterOptions> = {}) => insertCluster(t.app, { user: ids.demoUser, project: ids.demoProject, ...o });

before(async () => {
  t = await testApp();
  const s = t.keystone.state;
  ids = {
    demoUser: s.userId('demo'),
    demoProject: s.projectId('demo'),
    adminProject: s.projectId('admin'),
    otherUser: s.userId('other'),
    otherProject: s.projectId('other'),
  };
  [mine, peer, adminOwn] = await Promise.all([
    cluster({ name: 'mine', nodegroups: true }),
    cluster({ name: 'peer', user: randomUUID().replace(/-/g, '') }),
    insertCluster(t.app, { name: 'admins', user: randomUUID().replace(/-/g, ''), project: ids.adminProject }),
  ]);
  csr = opensslCsr().csr;
});
after(() => t.close());

const show = (user: User, ident: string, query = '') => t.as(user, { method: 'GET', url: `/v1/certificates/${ident}${query}` });
const sign = (user: User, payload: Record<string, unknown>) => t.as(user, { method: 'POST', url: '/v1/certificates', payload });
/** What `openstack coe ca rotate` sends: no body, application/octet-stream, Content-Length 0. */
const rotate = (user: User, ident: string) =>
  t.as(user, { method: 'PATCH', url: `/v1/certificates/${ident}`, headers: { 'content-type': 'application/octet-stream', 'content-length': '0' } });

const links = (uuid: string) => [
  { href: `http://localhost:80/v1/certificates/${uuid}`, rel: 'self' },
  { href: `http://localhost:80/certificates/${uuid}`, rel: 'bookmark' },
];

describe('GET /v1/certificates/{cluster}', () => {
  test('the creator gets the cluster CA: cluster_uuid, bay_uuid, pem and links only', async () => {
    for (const ident of [mine.cluster.uuid, 'mine', mine.cluster.uuid.toUpperCase()]) {
      const r = await show('demo', ident);
      assert.equal(r.statusCode, 200, r.body);
      assert.deepEqual(r.json(), { cluster_uuid: mine.cluster.uuid, bay_uuid: mine.cluster.uuid, pem: mine.pki!.ca.cert, links: links(mine.cluster.uuid) });
    }
    const slash = await show('demo', `${mine.cluster.uuid}/`);
    assert.equal(slash.statusCode, 200);
    const v11 = await t.as('demo', { method: 'GET', url: `/v1/certificates/${mine.cluster.uuid}`, headers: { 'openstack-api-version': 'container-infra 1.1' } });
    assert.equal(v11.statusCode, 200, 'exists since 1.1');
  });

  test('ca_cert_type chooses the CA; anything else is refused', async () => {
    const cases: [string, string][] = [
      ['', mine.pki!.ca.cert],
      ['?ca_cert_type=kubernetes', mine.pki!.ca.cert],
      ['?ca_cert_type=etcd', mine.pki!.etcdCa.cert],
      ['?ca_cert_type=front_proxy', mine.pki!.frontProxyCa.cert],
      ['?ca_cert_type=front-proxy', mine.pki!.frontProxyCa.cert],
    ];
    for (const [query, pem] of cases) {
      const r = await show('demo', mine.cluster.uuid, query);
      assert.equal(r.statusCode, 200, `${query}: ${r.body}`);
      assert.equal(r.json().pem, pem, query);
    }
    const bad = await show('demo', mine.cluster.uuid, '?ca_cert_type=service_account');
    assert.equal(bad.statusCode, 400);
    assert.equal(
      err(bad).detail,
      "Invalid input for field/attribute ca_cert_type. Value: 'service_account'. Value should be one of: kubernetes, etcd, front_proxy, front-proxy",
    );
    const unknown = await show('demo', mine.cluster.uuid, '?x=1');
    assert.equal(unknown.statusCode, 400);
    assert.equal(err(unknown).detail, 'Unknown argument: "x"');
  });

  test('by role: creator 200, reader 403, other project 404, admin of another project 404 (no widening)', async () => {
    const expected: [User, InsertedCluster, number][] = [
      ['demo', mine, 200],
      ['demo-reader', mine, 403],
      ['other', mine, 404],
      ['admin', mine, 404],
      ['demo', peer, 403],
      ['demo-reader', peer, 403],
      ['admin', peer, 404],
      ['admin', adminOwn, 200],
      ['demo', adminOwn, 404],
    ];
    for (const [user, c, status] of expected) {
      const r = await show(user, c.cluster.uuid);
      assert.equal(r.statusCode, status, `${user} on ${c.cluster.name}: ${r.body}`);
      if (status === 403) assert.equal(err(r).detail, "Policy doesn't allow certificate:get to be performed.");
      if (status === 404) assert.equal(err(r).detail, `Cluster ${c.cluster.uuid} could not be found.`);
    }
  });

  test('unknown cluster 404, ambiguous name 409', async () => {
    const r = await show('demo', 'nope');
    assert.equal(r.statusCode, 404);
    assert.equal(err(r).detail, 'Cluster nope could not be found.');
    await Promise.all([cluster({ name: 'twin' }), cluster({ name: 'twin' })]);
    const twin = await show('demo', 'twin');
    assert.equal(twin.statusCode, 409);
    assert.equal(err(twin).detail, 'Multiple clusters exist with same name. Please use the cluster uuid instead.');
  });
});

describe('POST /v1/certificates', () => {
  test('signs with the cluster CA: 201 with cluster_uuid, bay_uuid, csr, pem and links; openssl verifies it', async () => {
    const rsa = opensslCsr({ key: 'rsa:2048' }).csr;
    for (const body of [{ cluster_uuid: mine.cluster.uuid }, { cluster_uuid: 'mine' }, { bay_uuid: mine.cluster.uuid }]) {
      const r = await sign('demo', { ...body, csr: rsa });
      assert.equal(r.statusCode, 201, r.body);
      const c = r.json();
      assert.deepEqual(Object.keys(c).sort(), ['bay_uuid', 'cluster_uuid', 'csr', 'links', 'pem']);
      assert.equal(c.cluster_uuid, mine.cluster.uuid);
      assert.equal(c.bay_uuid, mine.cluster.uuid);
      assert.equal(c.csr, rsa);
      assert.deepEqual(c.links, links(mine.cluster.uuid));
      assert.ok(c.pem.endsWith('-----END CERTIFICATE-----'));
      assert.match(opensslVerify(mine.pki!.ca.cert, c.pem), /: OK\n/);
      assert.match(opensslText(c.pem), /Subject: O = system:masters, CN = admin\n/);
    }
  });

  test('ca_cert_type signs with the etcd or front-proxy CA and is echoed', async () => {
    for (const [type, ca] of [['etcd', mine.pki!.etcdCa], ['front-proxy', mine.pki!.frontProxyCa], ['front_proxy', mine.pki!.frontProxyCa], ['kubernetes', mine.pki!.ca]] as const) {
      const r = await sign('demo', { cluster_uuid: mine.cluster.uuid, csr, ca_cert_type: type });
      assert.equal(r.statusCode, 201, r.body);
      assert.equal(r.json().ca_cert_type, type);
      assert.match(opensslVerify(ca.cert, r.json().pem), /: OK\n/, type);
    }
  });

  test('by role: creator 201, reader 403, a cluster out of scope is a 400 (admin not widened)', async () => {
    const expected: [User, InsertedCluster, number][] = [
      ['demo', mine, 201],
      ['demo-reader', mine, 403],
      ['other', mine, 400],
      ['admin', mine, 400],
      ['demo', peer, 403],
      ['admin', adminOwn, 201],
      ['demo', adminOwn, 400],
    ];
    for (const [user, c, status] of expected) {
      const r = await sign(user, { cluster_uuid: c.cluster.uuid, csr });
      assert.equal(r.statusCode, status, `${user} on ${c.cluster.name}: ${r.body}`);
      if (status === 403) assert.equal(err(r).detail, "Policy doesn't allow certificate:create to be performed.");
      if (status === 400) assert.equal(err(r).detail, `Cluster ${c.cluster.uuid} could not be found.`);
    }
  });

  test('bad input: unknown cluster, missing fields, unknown attributes, bad ca_cert_type', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ cluster_uuid: 'nope', csr }, 'Cluster nope could not be found.'],
      [{ csr }, "Invalid input for field/attribute cluster_uuid. Value: 'None'. Mandatory field missing."],
      [{ cluster_uuid: mine.cluster.uuid }, "Invalid input for field/attribute csr. Value: 'None'. Mandatory field missing."],
      [{ cluster_uuid: mine.cluster.uuid, csr, bogus: 1 }, 'Unknown attribute for argument certificate: bogus'],
      [
        { cluster_uuid: mine.cluster.uuid, csr, ca_cert_type: 'x' },
        "Invalid input for field/attribute ca_cert_type. Value: 'x'. Value should be one of: kubernetes, etcd, front_proxy, front-proxy",
      ],
    ];
    for (const [payload, detail] of cases) {
      const r = await sign('demo', payload);
      assert.equal(r.statusCode, 400, `${JSON.stringify(payload)}: ${r.body}`);
      assert.equal(err(r).detail, detail);
      assert.equal(err(r).code, 'client');
    }
  });

  test('bad CSRs: unparsable, a forbidden critical extension', async () => {
    const garbage = await sign('demo', { cluster_uuid: mine.cluster.uuid, csr: 'not a csr' });
    assert.equal(garbage.statusCode, 400);
    assert.match(err(garbage).detail, /^Received invalid csr/);
    const critical = opensslCsr({ addext: ['1.2.3.4=critical,ASN1:UTF8String:x'] }).csr;
    const ext = await sign('demo', { cluster_uuid: mine.cluster.uuid, csr: critical });
    assert.equal(ext.statusCode, 400);
    assert.equal(err(ext).detail, "Extension '1.2.3.4' not allowed");
  });
});

describe('PATCH /v1/certificates/{cluster}', () => {
  test('queues rotate_ca: 202 {uuid}, UPDATE_IN_PROGRESS, one operation; again while in progress is a 400', async () => {
    const c = await cluster({ nodegroups: true });
    const r = await rotate('demo', c.cluster.name);
    assert.equal(r.statusCode, 202, r.body);
    assert.deepEqual(r.json(), { uuid: c.cluster.uuid });
    const row = await t.app.services.db.getRepository(ClusterEntity).findOneByOrFail({ uuid: c.cluster.uuid });
    assert.equal(row.status, 'UPDATE_IN_PROGRESS');
    assert.equal(row.status_reason, null);
    assert.ok(row.updated_at);
    const ops = await t.app.services.db.getRepository(OperationEntity).findBy({ cluster_id: c.cluster.uuid });
    assert.equal(ops.length, 1);
    assert.equal(ops[0]!.kind, 'rotate_ca');
    assert.deepEqual(ops[0]!.params, { from_generation: 1 });
    assert.ok(['pending', 'queued'].includes(ops[0]!.state));

    const again = await rotate('demo', c.cluster.uuid);
    assert.equal(again.statusCode, 400);
    assert.equal(err(again).detail, 'Updating a cluster when status is "UPDATE_IN_PROGRESS" is not supported.');
    // The CA itself is untouched until the worker rotates it.
    assert.equal((await show('demo', c.cluster.uuid)).json().pem, c.pki!.ca.cert);
  });

  test('also without any Content-Type', async () => {
    const c = await cluster();
    const r = await t.as('demo', { method: 'PATCH', url: `/v1/certificates/${c.cluster.uuid}` });
    assert.equal(r.statusCode, 202, r.body);
  });

  test('TLS-disabled template 400; a status outside the COMPLETE set 400; an active operation 409', async () => {
    const plain = await cluster({ template: { tls_disabled: true } });
    const r1 = await rotate('demo', plain.cluster.uuid);
    assert.equal(r1.statusCode, 400);
    assert.equal(err(r1).detail, 'Rotating the CA certificate on a non-TLS cluster is not supported.');

    for (const status of ['CREATE_IN_PROGRESS', 'CREATE_FAILED', 'UPDATE_FAILED', 'DELETE_IN_PROGRESS']) {
      const c = await cluster({ status });
      const r = await rotate('demo', c.cluster.uuid);
      assert.equal(r.statusCode, 400, status);
      assert.equal(err(r).detail, `Updating a cluster when status is "${status}" is not supported.`);
    }
    for (const status of ['UPDATE_COMPLETE', 'ROLLBACK_COMPLETE', 'CHECK_COMPLETE']) {
      const c = await cluster({ status });
      assert.equal((await rotate('demo', c.cluster.uuid)).statusCode, 202, status);
    }

    const busy = await cluster();
    await t.app.services.db.getRepository(OperationEntity).insert({
      id: randomUUID(), cluster_id: busy.cluster.uuid, kind: 'update', params: {}, state: 'running', error: null, attempts: 1,
      created_at: new Date(), updated_at: null, enqueued_at: null, started_at: new Date(), finished_at: null,
    });
    const r3 = await rotate('demo', busy.cluster.uuid);
    assert.equal(r3.statusCode, 409, r3.body);
    assert.match(err(r3).detail, /has an operation in progress \(update\)/);
    const row = await t.app.services.db.getRepository(ClusterEntity).findOneByOrFail({ uuid: busy.cluster.uuid });
    assert.equal(row.status, 'CREATE_COMPLETE', 'the refused rotation changed nothing');
  });

  test('by role: any member of the project (not only the creator) and admins in their own project; readers 403', async () => {
    const expected: [User, () => Promise<InsertedCluster>, number][] = [
      ['demo', () => cluster({ user: randomUUID() }), 202],
      ['demo-reader', () => cluster(), 403],
      ['other', () => cluster(), 404],
      ['admin', () => cluster(), 404],
      ['admin', () => insertCluster(t.app, { user: ids.otherUser, project: ids.adminProject }), 202],
    ];
    for (const [user, make, status] of expected) {
      const c = await make();
      const r = await rotate(user, c.cluster.uuid);
      assert.equal(r.statusCode, status, `${user}: ${r.body}`);
      if (status === 403) assert.equal(err(r).detail, "Policy doesn't allow certificate:rotate_ca to be performed.");
    }
    assert.equal((await rotate('demo', 'nope')).statusCode, 404);
  });
});

describe('CA private keys', () => {
  test('never appear in a response body or a log line', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const config = { ...t.config, logLevel: 'trace' };
    const services = await createServices(config, { steps: createOperation.steps });
    const app = await buildApp(config, { services, logStream: sink });
    try {
      await app.ready();
      const c = await insertCluster(app, { user: ids.demoUser, project: ids.demoProject });
      const token = await t.token('demo');
      const headers = { 'x-auth-token': token, 'openstack-api-version': 'container-infra latest' };
      const uuid = c.cluster.uuid;
      const bodies: string[] = [];
      for (const type of ['', '?ca_cert_type=etcd', '?ca_cert_type=front-proxy', '?ca_cert_type=bad']) {
        bodies.push((await app.inject({ method: 'GET', url: `/v1/certificates/${uuid}${type}`, headers })).body);
      }
      for (const payload of [{ cluster_uuid: uuid, csr }, { cluster_uuid: uuid, csr: 'junk' }, { cluster_uuid: uuid, csr: c.pki!.ca.key }, { cluster_uuid: 'nope', csr }]) {
        bodies.push((await app.inject({ method: 'POST', url: '/v1/certificates', headers, payload })).body);
      }
      bodies.push((await app.inject({ method: 'PATCH', url: `/v1/certificates/${uuid}`, headers: { ...headers, 'content-type': 'application/octet-stream' } })).body);
      assert.equal(bodies.length, 9);
      assert.ok(lines.length > 9, 'requests were logged');
      const keys = [c.pki!.ca, c.pki!.etcdCa, c.pki!.frontProxyCa, c.pki!.serviceAccount].map((k) => k.key.split('\n')[1]!);
      for (const text of [...bodies, ...lines]) {
        assert.ok(!text.includes('PRIVATE KEY'), `a private key leaked: ${text.slice(0, 200)}`);
        for (const k of keys) assert.ok(!text.includes(k), 'key material leaked');
      }
    } finally {
      await app.close();
      await services.close();
    }
  });
});
