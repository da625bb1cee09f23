// Fedora CoreOS nodes get an Ignition config (spec 3.3.0) that lays down the same bootstrap as
// Ubuntu's cloud-config: every rendering of the matrix is valid against Ignition's published JSON
// schema (./fixtures) and passes Debian's ignition-validate (installed when missing) without
// a warning; its files are the cloud-config's, its volumes are formatted and mounted by units.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Ajv } from 'ajv';
import { NOVA_USER_DATA_LIMIT } from '../../../src/bootstrap/user-data/inputs.js';
import { contents, percentEncode } from '../../../src/bootstrap/user-data/ignition.js';
import { base64Size } from '../../../src/bootstrap/user-data/userdata.js';
import { aptInstall } from '../../support/apt.js';
import { matrix, pool, render } from '../../support/bootstrap-matrix.js';
import { cloudConfigFiles, dataUrlText, ignitionFiles, type IgnitionConfig } from '../../support/node-files.js';

const VALIDATE = '/usr/bin/ignition-validate';
const run = promisify(execFile);
const schema = JSON.parse(readFileSync(new URL('./fixtures/ignition-v3_3.schema.json', import.meta.url), 'utf8')) as Record<string, unknown>;
// The schema is draft-04; nothing in it reads differently under ajv's draft-07 but the $schema URI.
const { $schema: _draft04, ...body } = schema;
const valid = new Ajv({ allErrors: true, strict: false }).compile(body);

async function ensureValidate(): Promise<void> {
  if (existsSync(VALIDATE)) return;
  await aptInstall(['ignition']);
  assert.ok(existsSync(VALIDATE), 'ignition-validate installed');
}

/** ignition-validate's complaints ('' when none: it prints warnings and still exits 0). */
async function ignitionValidate(file: string): Promise<string> {
  try {
    const { stdout, stderr } = await run(VALIDATE, [file]);
    return `${stdout}${stderr}`;
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string };
    return `${err.stdout ?? ''}${err.stderr ?? String(e)}` || 'failed';
  }
}

test('every Fedora CoreOS rendering of the matrix: Ignition 3.3.0, valid against the published schema and ignition-validate, under Nova\'s limit', { timeout: 300_000 }, async () => {
  await ensureValidate();
  const fcos = matrix().filter((r) => r.distro === 'fedora-coreos');
  assert.equal(fcos.length, 108);
  const dir = mkdtempSync(join(tmpdir(), 'ignition-'));
  const failures: string[] = [];
  let largest = 0;
  for (const r of fcos) {
    const cfg = JSON.parse(r.userData) as IgnitionConfig;
    assert.equal(cfg.ignition.version, '3.3.0', r.name);
    if (!valid(cfg)) failures.push(`${r.name}: schema: ${JSON.stringify(valid.errors)}`);
    largest = Math.max(largest, base64Size(r.userData));
  }
  await pool(fcos, 4, async (r) => {
    const f = join(dir, `${r.name}.ign`);
    writeFileSync(f, r.userData);
    const out = await ignitionValidate(f);
    if (out !== '') failures.push(`${r.name}: ignition-validate: ${out}`);
  });
  assert.deepEqual(failures, []);
  assert.ok(largest < NOVA_USER_DATA_LIMIT);
  console.log(`ignition: ${fcos.length} renderings valid (schema and ignition-validate); largest ${largest} base64 bytes of ${NOVA_USER_DATA_LIMIT}`);
});

test('the checks really reject a broken config', async () => {
  await ensureValidate();
  const bad = { ignition: { version: '3.3.0' }, storage: { files: [{ path: '/etc/x', mode: 'rw', bogus: 1 }] } };
  assert.equal(valid(bad), false, 'schema: mode must be an integer');
  const f = join(mkdtempSync(join(tmpdir(), 'ignition-')), 'bad.ign');
  writeFileSync(f, JSON.stringify(bad));
  assert.notEqual(await ignitionValidate(f), '');
  writeFileSync(f, '#cloud-config\nwrite_files: []\n');
  assert.notEqual(await ignitionValidate(f), '', 'cloud-config is not an Ignition config');
});

test('the Ignition config lays down the cloud-config\'s files, and Fedora CoreOS\' own', () => {
  for (const role of ['init', 'worker'] as const) {
    const ign = ignitionFiles(render('1.35', 'calico', role, 'fedora-coreos', 'stock', 'all').userData);
    const cc = cloudConfigFiles(render('1.35', 'calico', role, 'ubuntu', 'stock', 'all').userData);
    for (const [path, f] of cc) {
      if (path === '/usr/local/bin/magnum-bootstrap') continue;
      assert.deepEqual(ign.get(path), f, `${role}: ${path}`);
    }
    // The release binaries need their own kubelet unit and kubeadm's drop-in (Ubuntu's packages bring them).
    for (const path of ['/usr/local/lib/magnum/kubelet.service', '/usr/local/lib/magnum/10-kubeadm.conf']) {
      assert.ok(ign.has(path) && !cc.has(path), path);
    }
    assert.equal(ign.get('/etc/hostname')!.content, `k1-5d12f-${role}-x1\n`);
    assert.match(ign.get('/etc/zincati/config.d/90-magnum-no-auto-updates.toml')!.content, /\[updates\]\nenabled = false/);
    assert.match(ign.get('/etc/selinux/config')!.content, /^SELINUX=permissive$/m);
    assert.equal(ign.get('/usr/local/bin/magnum-bootstrap')!.mode, 0o700);
    if (role === 'init') assert.equal(ign.get('/etc/kubernetes/pki/ca.key')!.mode, 0o600);
    else assert.ok(![...ign.keys()].some((p) => p.startsWith('/etc/kubernetes/pki')), 'no PKI on workers');
  }
});

test('the Ignition config formats the volumes once and mounts them before their users; the bootstrap runs once, on the console', () => {
  const cfg = JSON.parse(render('1.36', 'flannel', 'init', 'fedora-coreos', 'stock', 'all').userData) as IgnitionConfig;
  assert.deepEqual(cfg.storage.filesystems, [
    { device: '/dev/vdb', format: 'ext4', label: 'etcd', wipeFilesystem: false },
    { device: '/dev/vdc', format: 'ext4', label: 'containerd', wipeFilesystem: false },
  ]);
  const units = new Map(cfg.systemd.units.map((u) => [u.name, u]));
  assert.deepEqual([...units.keys()], ['var-lib-etcd.mount', 'var-lib-containerd.mount', 'magnum-bootstrap.service']);
  assert.ok([...units.values()].every((u) => u.enabled));
  assert.match(units.get('var-lib-containerd.mount')!.contents, /What=\/dev\/disk\/by-label\/containerd\nWhere=\/var\/lib\/containerd/);
  assert.match(units.get('var-lib-containerd.mount')!.contents, /Before=local-fs\.target containerd\.service/);
  const boot = units.get('magnum-bootstrap.service')!.contents;
  assert.match(boot, /ExecStart=\/usr\/local\/bin\/magnum-bootstrap/);
  assert.match(boot, /After=network-online\.target/);
  assert.match(boot, /ConditionPathExists=!\/etc\/kubernetes\/kubelet\.conf/, 'a joined node does not bootstrap again on reboot');
  assert.match(boot, /StandardOutput=journal\+console/, 'its failure line reaches the console log');
  // A worker has no etcd volume: its runtime volume is the first extra disk.
  const worker = JSON.parse(render('1.36', 'flannel', 'worker', 'fedora-coreos', 'stock', 'all').userData) as IgnitionConfig;
  assert.deepEqual(worker.storage.filesystems, [{ device: '/dev/vdb', format: 'ext4', label: 'containerd', wipeFilesystem: false }]);
});

test('data URLs: the shorter of percent-encoding and gzip, read back exactly', () => {
  const text = 'line one\nkey: "value" # 100% {x} | ^ ` [y] \\ é\n';
  assert.equal(dataUrlText(`data:,${percentEncode(text)}`), text);
  assert.doesNotMatch(percentEncode(text), /[ \n"#{}|^`[\]\\<>]/, 'none of the characters Ignition\'s data URL lexer refuses');
  const short = contents('SELINUX=permissive\n');
  assert.deepEqual(short, { source: 'data:,SELINUX=permissive%0A' });
  const long = contents('apiVersion: kubeadm.k8s.io/v1beta4\n'.repeat(50));
  assert.equal(long.compression, 'gzip');
  assert.equal(dataUrlText(long.source, long.compression), 'apiVersion: kubeadm.k8s.io/v1beta4\n'.repeat(50));
});
