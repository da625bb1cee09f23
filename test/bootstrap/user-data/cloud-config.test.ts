// A node's files as cloud-init's #cloud-config (Ubuntu): the files, the volumes set up once in the init stage, the
// bootstrap in runcmd. Every Ubuntu rendering passes the real `cloud-init schema` (Debian's cloud-init package; installed when missing).
// `cloud-init schema` validates one --config-file per run (a repeated flag keeps only the last), so the files
// (bootstrap-matrix.ts: 3 versions × 2 CNIs × 3 roles of stock images, and for 1.35 every image kind × add-on
// set × role) run through a pool of parallel invocations.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { renderCloudConfig } from '../../../src/bootstrap/user-data/cloud-config.js';
import type { NodeConfig } from '../../../src/bootstrap/user-data/node-files.js';
import { aptInstall } from '../../support/apt.js';
import { matrix, pool } from '../../support/bootstrap-matrix.js';

const CLOUD_INIT = '/usr/bin/cloud-init';
const run = promisify(execFile);

async function ensureCloudInit(): Promise<void> {
  if (existsSync(CLOUD_INIT)) return;
  await aptInstall(['cloud-init']);
  assert.ok(existsSync(CLOUD_INIT), 'cloud-init installed');
}

test('cloud-init schema accepts every Ubuntu rendering: minors × CNIs × roles, images that install or carry Kubernetes or may not install, volumes, KMS, node labels and taints', { timeout: 600_000 }, async () => {
  await ensureCloudInit();
  const dir = mkdtempSync(join(tmpdir(), 'kube-schema-'));
  const chosen = matrix().filter((r) => r.distro === 'ubuntu' && ((r.image === 'stock' && r.addons === 'plain') || (r.minor === '1.35' && r.cni === 'calico')));
  assert.equal(chosen.length, 33);
  const files = chosen.map((r) => {
    const path = join(dir, `${r.name}.yaml`);
    writeFileSync(path, r.userData);
    return path;
  });
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

const cfg = (disks: NodeConfig['disks'] = []): NodeConfig => ({
  hostname: 'k1-5d12f-worker-b0000',
  image: { distro: 'ubuntu', kubeVersion: null },
  files: [{ path: '/etc/a.conf', content: 'a: 1\n', permissions: '0644' }, { path: '/usr/local/bin/magnum-bootstrap', content: '#!/bin/bash\n', permissions: '0700' }],
  disks,
});

test('the document: the node\'s hostname kept across reboots, its files as root\'s with their modes, the bootstrap script as the one command', () => {
  const text = renderCloudConfig(cfg());
  assert.ok(text.startsWith('#cloud-config\n'));
  const doc = parse(text);
  assert.deepEqual(Object.keys(doc), ['hostname', 'preserve_hostname', 'prefer_fqdn_over_hostname', 'write_files', 'runcmd'], 'no disk setup without disks');
  assert.deepEqual([doc.hostname, doc.preserve_hostname, doc.prefer_fqdn_over_hostname], ['k1-5d12f-worker-b0000', false, false]);
  assert.deepEqual(doc.write_files[1], { path: '/usr/local/bin/magnum-bootstrap', content: '#!/bin/bash\n', owner: 'root:root', permissions: '0700' });
  assert.deepEqual(doc.runcmd, [['/usr/local/bin/magnum-bootstrap']]);
});

test('volumes: a GPT table and an ext4 filesystem each, never overwritten, mounted by label without blocking the boot', () => {
  const vol = { sizeGb: 10, type: '' };
  const doc = parse(renderCloudConfig(cfg([{ label: 'etcd', device: '/dev/vdb', mountPoint: '/var/lib/etcd', volume: vol }, { label: 'containerd', device: '/dev/vdc', mountPoint: '/var/lib/containerd', volume: vol }])));
  assert.deepEqual(doc.disk_setup, { '/dev/vdb': { table_type: 'gpt', layout: true, overwrite: false }, '/dev/vdc': { table_type: 'gpt', layout: true, overwrite: false } });
  assert.deepEqual(doc.fs_setup[1], { label: 'containerd', filesystem: 'ext4', device: '/dev/vdc', partition: 'auto', overwrite: false });
  assert.deepEqual(doc.mounts[0], ['LABEL=etcd', '/var/lib/etcd', 'ext4', 'defaults,nofail,x-systemd.device-timeout=120', '0', '2']);
});

