// Issue 5 item 4 (Barbican KMS) through the API and the workers: with barbican_kms_enabled the create stores an
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

test('the key is made in Barbican, every control plane names it (also after an upgrade), workers know nothing of it; the delete removes it', async () => {
  const r = await api(h, 'POST', '/v1/clusters', { cluster_template_id: await template('kms'), name: 'kms', master_count: 3, node_count: 1 });
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
  assert.equal(workers.length, 1);
  for (const s of cps) {
    const cc = parse(Buffer.from(s.userData!, 'base64').toString()) as CloudConfig;
    const conf = cc.write_files.find((f) => f.path === '/etc/kubernetes/barbican-kms/cloud.conf')!;
    assert.match(conf.content, new RegExp(`\\[KeyManager\\]\\nkey-id=${key.id}\\n`), `${s.name} names the key`);
    assert.ok(cc.write_files.some((f) => f.path === '/etc/kubernetes/manifests/barbican-kms.yaml'));
    assert.ok(cc.write_files.some((f) => f.path === '/etc/kubernetes/encryption/config.yaml'));
  }
  const init = cps.map((s) => parse(Buffer.from(s.userData!, 'base64').toString()) as CloudConfig).find((cc) => cc.write_files.some((f) => f.content.includes('kind: InitConfiguration')))!;
  assert.match(init.write_files.find((f) => f.path === '/etc/kubernetes/kubeadm/config.yaml')!.content, /name: encryption-provider-config/);
  for (const s of workers) assert.doesNotMatch(Buffer.from(s.userData!, 'base64').toString(), /barbican|KeyManager|encryption/);

  // An upgrade replaces every control plane: the new ones name the same key (no second key is made).
  const up = await api(h, 'POST', `/v1/clusters/${uuid}/actions/upgrade`, { cluster_template: h.templates.v136 });
  assert.equal(up.status, 202, JSON.stringify(up.body));
  await settled(h, uuid, 'UPDATE_COMPLETE');
  const replaced = [...h.t.cloud!.nova.servers.values()].filter((s) => s.metadata.magnum_cluster === uuid && s.metadata.magnum_role !== 'worker' && s.metadata.magnum_kube_version === 'v1.36.0');
  assert.equal(replaced.length, 3);
  for (const s of replaced) {
    assert.ok(!cps.some((old) => old.id === s.id), `${s.name} is a new server`);
    assert.match(Buffer.from(s.userData!, 'base64').toString(), new RegExp(`key-id=${key.id}\\n`), `${s.name} names the same key`);
  }
  assert.equal([...h.t.cloud!.sims.barbican.state.secrets.values()].filter((x) => x.name === `magnum-${uuid}-kms`).length, 1);

  await deleteCluster(h, uuid);
  assert.equal(h.t.cloud!.sims.barbican.state.secrets.has(key.id), false, 'the key is gone');
  assert.deepEqual(leftovers(h).map((x) => `${x.service}:${x.type}:${x.id}`), []);
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
