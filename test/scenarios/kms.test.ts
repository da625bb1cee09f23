// Issue 5 item 4 (Barbican KMS) and issue 26 item 1 (no secret in user-data) through the API and the workers: with barbican_kms_enabled the create stores an
// AES-256 key in Barbican before the control planes boot, every control plane's user-data carries the encryption
// config, the plugin's static pod and a cloud.conf naming that key, and the apiserver the flag; the delete removes
// the key; a cloud without Barbican fails the create on the control-plane condition with the reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { api, deleteCluster, leftovers, settled, withHarness, withoutService, type Harness } from './lifecycle-support.js';

let h: Harness;
withHarness((x) => {
  h = x;
});

async function template(name: string): Promise<string> {
  const r = await api(h, 'POST', '/v1/clustertemplates', {
    name, coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', flavor_id: 'm1.small', master_flavor_id: 'm1.medium',
    master_lb_enabled: true, floating_ip_enabled: true, network_driver: 'calico', labels: { kube_tag: 'v1.35.1', barbican_kms_enabled: 'true' },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.uuid as string;
}

type CloudConfig = { write_files: { path: string; content: string }[] };
const userData = (s: { userData?: string | null }) => Buffer.from(s.userData!, 'base64').toString();
const writes = (s: { userData?: string | null }) => (parse(userData(s)) as CloudConfig).write_files;
/** What a server fetched at first boot and keeps under /etc/kubernetes (the simulated node's disk). */
const nodeFiles = (serverId: string, name: string) => h.t.cloud!.sims.kube.clusterOf(serverId)?.nodeFiles(name) ?? {};

/**
 * Issue 26 item 1: what Nova holds for every node (its user-data, as an admin reads it) has no private key, no
 * join token and no credential; the node fetched them once at first boot, and the token its user-data names is
 * refused afterwards.
 */
function assertNoSecretsInUserData(s: { id: string; name: string; userData?: string | null }): void {
  const text = userData(s);
  assert.doesNotMatch(text, /PRIVATE KEY/, `${s.name}: no private key`);
  assert.doesNotMatch(text, /\b[a-z0-9]{6}\.[a-z0-9]{16}\b/, `${s.name}: no bootstrap token`);
  assert.doesNotMatch(text, /application-credential-secret|application_credential_secret/, `${s.name}: no credential`);
  assert.ok(!writes(s).some((f) => f.path.startsWith('/etc/kubernetes/kubeadm/') || f.path.endsWith('.key')), `${s.name}: no kubeadm configuration, no key file`);
}

async function assertTokenSpent(s: { id: string; name: string; userData?: string | null }): Promise<void> {
  const env = writes(s).find((f) => f.path === '/etc/magnum/node-material.env')!.content;
  const url = /^MATERIAL_URL='([^']+)'$/m.exec(env)![1]!;
  const token = /^MATERIAL_TOKEN='([^']+)'$/m.exec(env)![1]!;
  assert.ok(url.startsWith('http://127.0.0.1:'), url);
  const again = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'x-server-id': s.id } });
  assert.equal(again.status, 410, `${s.name}: its token works once`);
}

test('no secret in any node\'s user-data; each node fetched its material once; the key is made in Barbican, every control plane names it (also after an upgrade and a resize), workers know nothing of it; the delete removes it', async () => {
  const r = await api(h, 'POST', '/v1/clusters', { cluster_template_id: await template('kms'), name: 'kms', master_count: 3, node_count: 2 });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const uuid = r.body.uuid as string;
  await settled(h, uuid, 'CREATE_COMPLETE');

  const secrets = [...h.t.cloud!.sims.barbican.state.secrets.values()].filter((s) => s.name === `magnum-${uuid}-kms`);
  assert.equal(secrets.length, 1, 'one key');
  const key = secrets[0]!;
  assert.deepEqual([key.secretType, key.algorithm, key.bitLength, key.projectId], ['symmetric', 'aes', 256, h.project]);
  assert.equal(Buffer.from(key.payload, 'base64').length, 32);

  const servers = [...h.t.cloud!.nova.servers.values()].filter((s) => s.metadata.magnum_cluster === uuid || JSON.stringify(s.tags ?? []).includes(uuid));
  const cps = servers.filter((s) => s.metadata.magnum_role !== 'worker');
  const workers = servers.filter((s) => s.metadata.magnum_role === 'worker');
  assert.equal(cps.length, 3);
  assert.equal(workers.length, 2);
  for (const s of servers) {
    assertNoSecretsInUserData(s);
    await assertTokenSpent(s);
  }
  const fetched = (await h.t.services.events.latest(uuid, 500)).filter((e) => e.reason === 'NodeMaterialFetched');
  assert.equal(fetched.length, 5, 'every node fetched its material, once');
  assert.equal((await h.t.services.events.latest(uuid, 500)).filter((e) => e.reason === 'NodeMaterialRefused').length, 5, 'the second fetches are in the timeline');
  for (const s of cps) {
    // the encryption configuration and the plugin's pod ride in the user-data; the credential naming the key was fetched
    assert.ok(writes(s).some((f) => f.path === '/etc/kubernetes/manifests/barbican-kms.yaml'));
    assert.ok(writes(s).some((f) => f.path === '/etc/kubernetes/encryption/config.yaml'));
    const conf = nodeFiles(s.id, s.name)['/etc/kubernetes/barbican-kms/cloud.conf'];
    assert.match(conf ?? '', new RegExp(`\\[KeyManager\\]\\nkey-id=${key.id}\\n`), `${s.name} fetched the cloud.conf naming the key`);
    assert.match(conf ?? '', /application-credential-secret=/);
  }
  for (const s of workers) {
    assert.doesNotMatch(userData(s), /barbican|KeyManager|encryption/);
    assert.deepEqual(Object.keys(nodeFiles(s.id, s.name)).filter((p) => /barbican|encryption/.test(p)), []);
  }

  // A resize boots new workers, each with a token of its own.
  const resize = await api(h, 'POST', `/v1/clusters/${uuid}/actions/resize`, { node_count: 3 });
  assert.equal(resize.status, 202, JSON.stringify(resize.body));
  await settled(h, uuid, 'UPDATE_COMPLETE');
  const added = [...h.t.cloud!.nova.servers.values()].filter((s) => s.metadata.magnum_cluster === uuid && s.metadata.magnum_role === 'worker' && !workers.some((w) => w.id === s.id));
  assert.equal(added.length, 1);
  assertNoSecretsInUserData(added[0]!);
  await assertTokenSpent(added[0]!);

  // An upgrade replaces every control plane: the new ones fetch the same key's cloud.conf (no second key is made).
  const up = await api(h, 'POST', `/v1/clusters/${uuid}/actions/upgrade`, { cluster_template: h.templates.v136 });
  assert.equal(up.status, 202, JSON.stringify(up.body));
  await settled(h, uuid, 'UPDATE_COMPLETE');
  const replaced = [...h.t.cloud!.nova.servers.values()].filter((s) => s.metadata.magnum_cluster === uuid && s.metadata.magnum_role !== 'worker' && s.metadata.magnum_kube_version === 'v1.36.0');
  assert.equal(replaced.length, 3);
  for (const s of replaced) {
    assert.ok(!cps.some((old) => old.id === s.id), `${s.name} is a new server`);
    assertNoSecretsInUserData(s);
    assert.match(nodeFiles(s.id, s.name)['/etc/kubernetes/barbican-kms/cloud.conf'] ?? '', new RegExp(`key-id=${key.id}\\n`), `${s.name} names the same key`);
  }
  assert.equal([...h.t.cloud!.sims.barbican.state.secrets.values()].filter((x) => x.name === `magnum-${uuid}-kms`).length, 1);

  await deleteCluster(h, uuid);
  assert.equal(h.t.cloud!.sims.barbican.state.secrets.has(key.id), false, 'the key is gone');
  assert.deepEqual(leftovers(h).map((x) => `${x.service}:${x.type}:${x.id}`), []);
  assert.deepEqual(await h.t.services.db.query('SELECT token_hash FROM node_material WHERE cluster_id = $1', [uuid]), [], 'its tokens go with the cluster');
});

test('a cloud without Barbican fails the create on the control plane with the reason, before any server boots', async () => {
  await withoutService(h, 'key-manager', async () => {
    const r = await api(h, 'POST', '/v1/clusters', { cluster_template_id: await template('kms-none'), name: 'kmsnone', master_count: 1, node_count: 1 });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    const c = await settled(h, r.body.uuid, 'CREATE_FAILED');
    assert.match(c.status_reason, /barbican_kms_enabled needs the key manager \(Barbican\)/);
    assert.equal([...h.t.cloud!.nova.servers.values()].filter((s) => s.metadata.magnum_cluster === r.body.uuid).length, 0, 'no server booted');
    await deleteCluster(h, r.body.uuid);
  });
  assert.deepEqual(leftovers(h).map((x) => `${x.service}:${x.type}:${x.id}`), []);
});
