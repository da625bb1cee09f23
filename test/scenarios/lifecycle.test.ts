// Issue 6 item 8: one cluster's whole life through the API — create (3 control planes, 2 workers),
// resize up and down (a named node), upgrade 1.35 → 1.36, CA rotation, delete — against the
// simulated cloud and the simulated Kubernetes API; nothing left behind, no server booted twice.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { X509Certificate, generateKeyPairSync } from 'node:crypto';
import { x509 } from '../../src/pki/keys.js';
import { startDelete } from '../../cloudsim/nova/lifecycle.js';
import { CloudFactory } from '../../src/steps/cloud.js';
import { healthPass } from '../../workers/health.js';
import { api, createCluster, deleteCluster, type Harness, leftovers, servers, settled, strayPorts, until, withHarness } from './lifecycle-support.js';

let h: Harness;
withHarness((x) => (h = x));

/** A client certificate for CN=admin/O=system:masters, signed through POST /v1/certificates (what `cluster config` does). */
async function adminCertificate(uuid: string): Promise<{ cert: string; key: string }> {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const keys = { privateKey: await crypto.subtle.importKey('pkcs8', privateKey.export({ type: 'pkcs8', format: 'der' }), { name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign']),
    publicKey: await crypto.subtle.importKey('spki', publicKey.export({ type: 'spki', format: 'der' }), { name: 'ECDSA', namedCurve: 'P-256' }, true, ['verify']) };
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=admin, O=system:masters', keys: keys as never, signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' } });
  const r = await api(h, 'POST', '/v1/certificates', { cluster_uuid: uuid, csr: csr.toString('pem') });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return { cert: r.body.pem as string, key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string };
}

/** GET /api/v1/nodes on the cluster's API with a client certificate, routed as the simulator routes its address. */
async function nodesWith(uuid: string, apiAddress: string, who: { cert: string; key: string }): Promise<number> {
  const ca = (await api(h, 'GET', `/v1/certificates/${uuid}`)).body.pem as string;
  const url = new URL(apiAddress);
  const target = h.t.cloud!.sims.kube.resolve(url.hostname, Number(url.port));
  assert.ok(target, `the simulator routes ${apiAddress}`);
  return new Promise((resolve, reject) => {
    const req = request({ host: target.host, port: target.port, path: '/api/v1/nodes', ca, cert: who.cert, key: who.key, servername: undefined,
      checkServerIdentity: (_h, cert) => (new X509Certificate(cert.raw).checkIP(url.hostname) ? undefined : new Error(`certificate not for ${url.hostname}`)) }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('a cluster from create to delete', () => {
  let uuid: string;
  let apiAddress: string;
  let before: { cert: string; key: string };

  test('create: CREATE_COMPLETE with the API address, version and addresses filled', async () => {
    h.t.cloud!.sims.resetCalls();
    uuid = await createCluster(h, 'life', 3, 2);
    const c = await settled(h, uuid, 'CREATE_COMPLETE');
    // The API load balancer in one graph create (listener, pool, the 3 members), the monitor after.
    const calls = h.t.cloud!.sims.calls();
    assert.equal(calls['octavia POST /lbaas/loadbalancers'], 1);
    for (const child of ['listeners', 'pools', 'pools/:pool_id/members']) assert.equal(calls[`octavia POST /lbaas/${child}`], undefined, child);
    assert.equal(calls['octavia POST /lbaas/healthmonitors'], 1);
    apiAddress = c.api_address;
    assert.match(apiAddress, /^https:\/\/\d+\.\d+\.\d+\.\d+:6443$/);
    assert.equal(c.coe_version, 'v1.35.1');
    assert.equal(c.master_addresses.length, 3);
    assert.equal(c.node_addresses.length, 2);
    assert.equal(servers(h, uuid).size, 5);
    const ngs = (await api(h, 'GET', `/v1/clusters/${uuid}/nodegroups`)).body.nodegroups as { status: string }[];
    assert.deepEqual(ngs.map((g) => g.status), ['CREATE_COMPLETE', 'CREATE_COMPLETE']);
    // Every run closes its connections to the cluster's API when it ends: none stays open after the create.
    const url = new URL(apiAddress);
    await until('no connection of the worker left open on the cluster API', async () => (await h.t.cloud!.sims.kube.connections(url.hostname, Number(url.port))) === 0 || undefined, 2000);
    before = await adminCertificate(uuid);
    assert.equal(await nodesWith(uuid, apiAddress, before), 200);
  });

  test('health: HEALTHY with every node Ready; a worker server lost behind our back makes it UNHEALTHY, naming the node', async () => {
    const factory = new CloudFactory(h.t.config);
    assert.equal(await healthPass(h.t.app.services.db, factory), 1);
    let c = (await api(h, 'GET', `/v1/clusters/${uuid}`)).body;
    assert.equal(c.health_status, 'HEALTHY');
    assert.equal(c.health_status_reason.api, 'ok');
    assert.equal(Object.keys(c.health_status_reason).filter((k) => k.endsWith('.Ready')).length, 5);
    const [lost, s] = [...servers(h, uuid).entries()].find(([, x]) => x.metadata.magnum_role === 'worker')!;
    startDelete(h.t.cloud!.nova, h.t.cloud!.nova.servers.get(s.id)!);
    await until('the server to be gone', async () => !servers(h, uuid).has(lost));
    await healthPass(h.t.app.services.db, factory);
    c = (await api(h, 'GET', `/v1/clusters/${uuid}`)).body;
    assert.equal(c.health_status, 'UNHEALTHY');
    assert.equal(c.health_status_reason[`${lost}.Ready`], 'False');
  });

  test('resize up to 4 workers, then down to 1 removing a named node', async () => {
    let r = await api(h, 'POST', `/v1/clusters/${uuid}/actions/resize`, { node_count: 4 });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    let c = await settled(h, uuid, 'UPDATE_COMPLETE');
    assert.equal(c.node_addresses.length, 4);
    assert.equal(servers(h, uuid).size, 7);
    const workers = [...servers(h, uuid).entries()].filter(([, s]) => s.metadata.magnum_role === 'worker');
    const named = workers[0]!;
    r = await api(h, 'POST', `/v1/clusters/${uuid}/actions/resize`, { node_count: 1, nodes_to_remove: [named[1].id] });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    c = await settled(h, uuid, 'UPDATE_COMPLETE');
    assert.equal(c.node_addresses.length, 1);
    const left = servers(h, uuid);
    assert.equal(left.size, 4);
    assert.ok(!left.has(named[0]), 'the named node went');
  });

  test('upgrade to 1.36: every node replaced, coe_version follows', async () => {
    const r = await api(h, 'POST', `/v1/clusters/${uuid}/actions/upgrade`, { cluster_template: h.templates.v136 });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    const c = await settled(h, uuid, 'UPDATE_COMPLETE');
    assert.equal(c.coe_version, 'v1.36.0');
    assert.equal(c.cluster_template_id, h.templates.v136);
    const all = servers(h, uuid);
    assert.equal(all.size, 4);
    for (const [name, s] of all) assert.equal(s.metadata.magnum_kube_version, 'v1.36.0', name);
    // The replaced servers' pre-made ports (Nova keeps them) went with them.
    assert.deepEqual(strayPorts(h, uuid), []);
  });

  test('CA rotation: new CA, nodes re-issued, the old credentials stop working', async () => {
    const oldCa = (await api(h, 'GET', `/v1/certificates/${uuid}`)).body.pem as string;
    const r = await api(h, 'PATCH', `/v1/certificates/${uuid}`);
    assert.equal(r.status, 202, JSON.stringify(r.body));
    await settled(h, uuid, 'UPDATE_COMPLETE');
    const newCa = (await api(h, 'GET', `/v1/certificates/${uuid}`)).body.pem as string;
    assert.notEqual(newCa, oldCa);
    for (const [name, s] of servers(h, uuid)) assert.equal(s.metadata.magnum_ca_generation, '2', name);
    assert.equal(await nodesWith(uuid, apiAddress, await adminCertificate(uuid)), 200);
    assert.equal(await nodesWith(uuid, apiAddress, before), 401);
    assert.deepEqual(strayPorts(h, uuid), []);
  });

  test('delete: the row goes and the project holds nothing any more', async () => {
    await deleteCluster(h, uuid);
    assert.deepEqual(leftovers(h).map((r) => `${r.service}:${r.type}:${r.id}`), []);
  });
});
