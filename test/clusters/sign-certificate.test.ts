// The cluster's CAs through the use cases (src/clusters/sign-certificate.ts): which CA a ca_cert_type names;
// only the caller's own project's clusters (no admin widening); the CA certificate for its creator; a CSR
// signed by the CA openssl then verifies; Magnum's errors for a missing cluster, field or CA.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { caKind, ownCluster, showCa, signCertificate } from '../../src/clusters/sign-certificate.js';
import { ApiError, errors } from '../../src/domain/errors.js';
import type { ClusterRow } from '../../src/db/entities/cluster.js';
import { testApp, type TestApp } from '../support/app.js';
import { callerOf } from '../support/callers.js';
import { insertCluster } from '../support/cluster-fixture.js';
import { opensslCsr, opensslVerify } from '../support/openssl.js';

let t: TestApp;
let cluster: ClusterRow;
before(async () => {
  t = await testApp();
  const s = t.keystone.state;
  cluster = (await insertCluster(t.app, { user: s.userId('demo'), project: s.projectId('demo'), name: 'pki' })).cluster;
});
after(() => t.close());

const deps = () => ({ db: t.app.services.db, clusters: t.app.services.clusters, secretBox: t.app.services.secretBox, termDays: 30 });
const is = (status: number, message: string | RegExp) => (e: unknown) => e instanceof ApiError && e.status === status && (typeof message === 'string' ? e.message === message : message.test(e.message));

test('caKind: kubernetes unless etcd or front-proxy (either spelling)', () => {
  assert.deepEqual([caKind(undefined), caKind('kubernetes'), caKind('etcd'), caKind('front_proxy'), caKind('front-proxy')], ['kubernetes', 'kubernetes', 'etcd', 'front_proxy', 'front_proxy']);
});

test('ownCluster: the caller’s own project only, an admin’s too; the caller’s error when not found', async () => {
  const demo = await callerOf(t, 'demo');
  assert.equal((await ownCluster(t.app.services.clusters, demo.ctx, 'pki', (id) => errors.notFound('Cluster', id))).uuid, cluster.uuid);
  const admin = await callerOf(t, 'admin');
  await assert.rejects(ownCluster(t.app.services.clusters, admin.ctx, cluster.uuid, (id) => errors.certificateClusterNotFound(id)), is(400, `Cluster ${cluster.uuid} could not be found.`));
});

test('showCa: each CA’s certificate for the creator; another user of the project 403; another project 404', async () => {
  const demo = await callerOf(t, 'demo');
  const k8s = await showCa(deps(), demo.ctx, cluster.uuid, undefined);
  const etcd = await showCa(deps(), demo.ctx, 'pki', 'etcd');
  assert.match(k8s.pem, /^-----BEGIN CERTIFICATE-----/);
  assert.notEqual(k8s.pem, etcd.pem);
  await assert.rejects(showCa(deps(), (await callerOf(t, 'demo-reader')).ctx, 'pki', undefined), is(403, "Policy doesn't allow certificate:get to be performed."));
  await assert.rejects(showCa(deps(), (await callerOf(t, 'other')).ctx, cluster.uuid, undefined), is(404, `Cluster ${cluster.uuid} could not be found.`));
});

test('signCertificate: signed by the CA the type names; openssl verifies it against that CA only', async () => {
  const demo = await callerOf(t, 'demo');
  const { csr } = opensslCsr();
  const signed = await signCertificate({ ...deps(), termDays: 30 }, demo.ctx, { cluster_uuid: cluster.uuid, csr });
  const ca = await showCa(deps(), demo.ctx, cluster.uuid, undefined);
  assert.match(opensslVerify(ca.pem, signed.pem), /OK/);
  const byEtcd = await signCertificate(deps(), demo.ctx, { bay_uuid: 'pki', csr, ca_cert_type: 'etcd' });
  assert.throws(() => opensslVerify(ca.pem, byEtcd.pem));
  assert.match(opensslVerify((await showCa(deps(), demo.ctx, 'pki', 'etcd')).pem, byEtcd.pem), /OK/);
});

test('signCertificate’s refusals: no cluster named (400), an unknown one (400), a reader (403), a cluster without CAs (404)', async () => {
  const demo = await callerOf(t, 'demo');
  const { csr } = opensslCsr();
  await assert.rejects(signCertificate(deps(), demo.ctx, { csr }), is(400, "Invalid input for field/attribute cluster_uuid. Value: 'None'. Mandatory field missing."));
  await assert.rejects(signCertificate(deps(), demo.ctx, { cluster_uuid: 'ghost', csr }), is(400, 'Cluster ghost could not be found.'));
  await assert.rejects(signCertificate(deps(), (await callerOf(t, 'demo-reader')).ctx, { cluster_uuid: 'pki', csr }), is(403, "Policy doesn't allow certificate:create to be performed."));
  const s = t.keystone.state;
  const bare = (await insertCluster(t.app, { user: s.userId('demo'), project: s.projectId('demo'), pki: false })).cluster;
  await assert.rejects(signCertificate(deps(), demo.ctx, { cluster_uuid: bare.uuid, csr }), is(404, `The CA certificate of cluster ${bare.uuid} could not be found.`));
  await assert.rejects(showCa(deps(), demo.ctx, bare.uuid, undefined), is(404, /could not be found/));
});
