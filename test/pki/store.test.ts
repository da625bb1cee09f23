// The PKI at rest: cluster_certificate rows with sealed keys, loading, rotation as an ensure.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../../src/db/data-source.js';
import { ClusterCertificateEntity } from '../../src/db/entities/cluster-certificate.js';
import { SecretBox } from '../../src/security/secret-box.js';
import { generateClusterPki } from '../../src/pki/ca.js';
import { signCsr } from '../../src/pki/sign.js';
import { loadCa, loadCaCert, loadClusterPki, rotateClusterPki, sealContext, storeClusterPki } from '../../src/pki/store.js';
import { freshDatabase, type TestDatabase } from '../support/db.js';
import { opensslCsr, opensslVerify } from '../support/openssl.js';

let db: TestDatabase;
let ds: DataSource;
const key = randomBytes(32);
const box = new SecretBox([key]);

before(async () => {
  db = await freshDatabase();
  ds = createDataSource(db.url, 2);
  await ds.initialize();
});
after(async () => {
  await ds.destroy();
  await db.drop();
});

/** A bare cluster row (the FK target of cluster_certificate). */
async function cluster(name = 'k1'): Promise<{ uuid: string; name: string }> {
  const tpl = randomUUID();
  const uuid = randomUUID();
  await ds.query(`INSERT INTO cluster_template (uuid, name, project_id, user_id, coe, image_id) VALUES ($1, 't', 'p', 'u', 'kubernetes', 'img')`, [tpl]);
  await ds.query(`INSERT INTO cluster (uuid, name, project_id, user_id, cluster_template_id, status) VALUES ($1, $2, 'p', 'u', $3, 'CREATE_COMPLETE')`, [uuid, name, tpl]);
  return { uuid, name };
}

test('four rows, generation 1, keys sealed: no PEM key in the table, and they open only under their own context', async () => {
  const c = await cluster();
  const pki = await generateClusterPki(c);
  await ds.transaction((em) => storeClusterPki(em, box, c.uuid, pki));
  const rows = await ds.getRepository(ClusterCertificateEntity).findBy({ cluster_id: c.uuid });
  assert.deepEqual(rows.map((r) => r.kind).sort(), ['etcd', 'front_proxy', 'kubernetes', 'service_account']);
  const plainBodies = [pki.ca, pki.etcdCa, pki.frontProxyCa, pki.serviceAccount].map((p) => p.key.split('\n')[1]!);
  for (const r of rows) {
    assert.equal(r.generation, 1);
    assert.match(r.key, /^v1\./);
    assert.ok(!r.key.includes('PRIVATE KEY'), `${r.kind}: the key is sealed`);
    for (const body of plainBodies) assert.ok(!r.key.includes(body), `${r.kind}: no plaintext key material`);
  }
  const sa = rows.find((r) => r.kind === 'service_account')!;
  assert.equal(sa.cert, pki.serviceAccount.pub);
  assert.equal(box.open(sa.key, sealContext(c.uuid, 'service_account')), pki.serviceAccount.key);
  const k8s = rows.find((r) => r.kind === 'kubernetes')!;
  assert.throws(() => box.open(k8s.key, sealContext(c.uuid, 'etcd')), /does not authenticate/, 'another kind');
  assert.throws(() => box.open(k8s.key, sealContext(randomUUID(), 'kubernetes')), /does not authenticate/, 'another cluster');
  assert.throws(() => new SecretBox([randomBytes(32)]).open(k8s.key, sealContext(c.uuid, 'kubernetes')), /unknown key/, 'another key');
  // A rotated-in sealing key still opens what the old one sealed.
  assert.equal(new SecretBox([randomBytes(32), key]).open(k8s.key, sealContext(c.uuid, 'kubernetes')), pki.ca.key);
});

test('loadCa opens the key; loadCaCert reads the certificate only; a key copied to another cluster does not open', async () => {
  const a = await cluster('a');
  const b = await cluster('b');
  const pa = await generateClusterPki(a);
  const pb = await generateClusterPki(b);
  await ds.transaction(async (em) => {
    await storeClusterPki(em, box, a.uuid, pa);
    await storeClusterPki(em, box, b.uuid, pb);
  });
  assert.deepEqual(await loadCa(ds, box, a.uuid, 'kubernetes'), pa.ca);
  assert.deepEqual(await loadCa(ds, box, a.uuid, 'etcd'), pa.etcdCa);
  assert.deepEqual(await loadCa(ds, box, a.uuid, 'front_proxy'), pa.frontProxyCa);
  assert.equal(await loadCaCert(ds, a.uuid, 'front_proxy'), pa.frontProxyCa.cert);
  assert.equal(await loadCa(ds, box, randomUUID(), 'kubernetes'), null);
  assert.equal(await loadCaCert(ds, randomUUID(), 'kubernetes'), null);
  const loaded = await loadClusterPki(ds, box, a.uuid);
  assert.deepEqual(loaded, { pki: pa, generation: 1 });

  const repo = ds.getRepository(ClusterCertificateEntity);
  const stolen = (await repo.findOneByOrFail({ cluster_id: a.uuid, kind: 'kubernetes' })).key;
  await repo.update({ cluster_id: b.uuid, kind: 'kubernetes' }, { key: stolen });
  await assert.rejects(loadCa(ds, box, b.uuid, 'kubernetes'), /does not authenticate/);
});

test('rotation: new CAs at generation + 1; with fromGeneration it is an ensure that rotates once', async () => {
  const c = await cluster();
  const before = await generateClusterPki(c);
  await ds.transaction((em) => storeClusterPki(em, box, c.uuid, before));

  const first = await ds.transaction((em) => rotateClusterPki(em, box, c, { fromGeneration: 1 }));
  assert.equal(first.generation, 2);
  assert.equal(first.rotated, true);
  for (const f of ['ca', 'etcdCa', 'frontProxyCa'] as const) assert.notEqual(first.pki[f].cert, before[f].cert);
  assert.notEqual(first.pki.serviceAccount.key, before.serviceAccount.key);

  const retry = await ds.transaction((em) => rotateClusterPki(em, box, c, { fromGeneration: 1 }));
  assert.equal(retry.rotated, false, 'a retried step does not rotate twice');
  assert.deepEqual(retry.pki, first.pki);
  assert.deepEqual(await loadClusterPki(ds, box, c.uuid), { pki: first.pki, generation: 2 });

  const again = await ds.transaction((em) => rotateClusterPki(em, box, c));
  assert.equal(again.generation, 3);
  const rows = await ds.getRepository(ClusterCertificateEntity).findBy({ cluster_id: c.uuid });
  assert.deepEqual(new Set(rows.map((r) => r.generation)), new Set([3]));

  // The stored CA signs, and what it signs is valid under the stored certificate only.
  const ca = (await loadCa(ds, box, c.uuid, 'kubernetes'))!;
  const pem = await signCsr(ca, opensslCsr().csr);
  assert.match(opensslVerify(ca.cert, pem), /: OK\n/);
  assert.throws(() => opensslVerify(before.ca.cert, pem));
});
