// Every rendered user-data passes the real `cloud-init schema` (Debian's cloud-init package; installed when missing).
// `cloud-init schema` validates one --config-file per run (a repeated flag keeps only the last), so the
// 22 files (3 versions × 2 CNIs × 3 roles, and control planes with an etcd volume or Barbican KMS) run through a pool of parallel invocations.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { NODE_ROLES, type UserDataInput } from '../../src/kube/cloudinit/inputs.js';
import { renderUserData } from '../../src/kube/cloudinit/userdata.js';
import { kmsCloudConf } from '../../src/kube/kms.js';
import { parseClusterSpec } from '../../src/kube/spec/parse.js';
import { SUPPORTED_MINORS, VERSION_MATRIX } from '../../src/kube/versions.js';
import { input, pki, TOKEN } from './fixtures.js';
import { aptInstall } from '../support/apt.js';

const CLOUD_INIT = '/usr/bin/cloud-init';
const run = promisify(execFile);

async function ensureCloudInit(): Promise<void> {
  if (existsSync(CLOUD_INIT)) return;
  await aptInstall(['cloud-init']);
  assert.ok(existsSync(CLOUD_INIT), 'cloud-init installed');
}

async function pool<T>(items: T[], size: number, fn: (t: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(Array.from({ length: size }, async () => {
    for (let t = queue.shift(); t !== undefined; t = queue.shift()) await fn(t);
  }));
}

test('cloud-init schema accepts every rendering: 3 Kubernetes minors × 2 CNIs × 3 roles, etcd volumes, Barbican KMS', { timeout: 600_000 }, async () => {
  await ensureCloudInit();
  const dir = mkdtempSync(join(tmpdir(), 'kube-schema-'));
  const files: string[] = [];
  for (const minor of SUPPORTED_MINORS) {
    for (const cni of ['calico', 'flannel'] as const) {
      const { spec } = parseClusterSpec(input({ network_driver: cni, labels: { kube_tag: VERSION_MATRIX[minor].kubernetes }, template: { http_proxy: 'http://proxy.example.org:3128' } }));
      for (const role of NODE_ROLES) {
        const common = { endpoint: { address: '10.0.0.10', extraSans: ['203.0.113.25'] }, bootstrapToken: TOKEN, nodeName: `${spec.cluster.shortName}-${role}-x1` };
        const i = (role === 'worker' ? { ...common, role, caCert: pki.ca.cert } : { ...common, role, pki }) as UserDataInput;
        const path = join(dir, `${minor}-${cni}-${role}.yaml`);
        writeFileSync(path, renderUserData(spec, i));
        files.push(path);
      }
    }
  }
  // A control plane with its etcd volume (disk_setup, fs_setup, mounts) and boot volume, and one with Barbican KMS.
  const { spec } = parseClusterSpec(input({ labels: { etcd_volume_size: '10', boot_volume_size: '40' } }));
  const kmsSpec = parseClusterSpec(input({ labels: { barbican_kms_enabled: 'true' } })).spec;
  const kms = { cloudConf: kmsCloudConf({ authUrl: 'https://keystone.example.org:5000/v3', region: 'RegionOne', applicationCredentialId: 'id', applicationCredentialSecret: 's' }, '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0') };
  for (const role of ['init', 'control-plane'] as const) {
    const path = join(dir, `etcd-volume-${role}.yaml`);
    writeFileSync(path, renderUserData(spec, { role, pki, endpoint: { address: '10.0.0.10' }, bootstrapToken: TOKEN, nodeName: `${spec.cluster.shortName}-${role}-v1` }));
    const kmsPath = join(dir, `kms-${role}.yaml`);
    writeFileSync(kmsPath, renderUserData(kmsSpec, { role, pki, kms, endpoint: { address: '10.0.0.10' }, bootstrapToken: TOKEN, nodeName: `${spec.cluster.shortName}-${role}-k1` }));
    files.push(path, kmsPath);
  }
  assert.equal(files.length, 22);
  const failures: string[] = [];
  await pool(files, 6, async (f) => {
    try {
      const { stdout } = await run(CLOUD_INIT, ['schema', '--config-file', f]);
      if (!stdout.includes('Valid cloud-config')) failures.push(`${f}: ${stdout}`);
    } catch (e) {
      const err = e as { stdout?: string; stderr?: string };
      failures.push(`${f}: ${err.stdout ?? ''}${err.stderr ?? e}`);
    }
  });
  assert.deepEqual(failures, []);
});

test('the schema check really rejects invalid cloud-config', async () => {
  await ensureCloudInit();
  const f = join(mkdtempSync(join(tmpdir(), 'kube-schema-')), 'bad.yaml');
  writeFileSync(f, '#cloud-config\nwrite_files:\n- path: /x\n  bogus: 1\n');
  await assert.rejects(run(CLOUD_INIT, ['schema', '--config-file', f]), (e: { stderr?: string }) => /bogus/.test(e.stderr ?? ''));
});
