import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const script = join(root, 'scripts/render.ts');
const fixtures = fileURLToPath(new URL('../support/pki-fixtures/', import.meta.url));
const tsx = ['--import', 'tsx', script];

test('scripts/render.ts renders a template + cluster (file and inline JSON) into a folder', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'render-'));
  const ct = join(dir, 'ct.json');
  writeFileSync(ct, JSON.stringify({ coe: 'kubernetes', network_driver: 'flannel', master_lb_enabled: true, labels: { kube_tag: 'v1.36.1', mystery: '1' } }));
  const out = join(dir, 'out');
  const cluster = JSON.stringify({ uuid: '5d12f6fd-a196-4bf0-ae4c-1f639a523a52', name: 'demo', project_id: '4c2a3b1e9f8d47a6b5c4d3e2f1a09b8c', master_count: 3, node_count: 2 });
  const { stdout, stderr } = await run(process.execPath, [...tsx, '--template', ct, '--cluster', cluster, '--out', out, '--pki-dir', fixtures, '--san', '203.0.113.9'], { cwd: root });
  assert.match(stdout, /rendered 15 files/);
  assert.match(stderr, /mystery is unknown/);
  for (const f of ['spec.json', 'network-plan.yaml', 'cloud-provider.yaml', 'cloud-config/cloud.conf', 'user-data/control-plane-init.yaml', 'user-data/control-plane-join.yaml', 'user-data/worker.yaml', 'addons/30-cni-flannel.yaml', 'addons/40-cinder-csi.yaml', 'addons/55-dns-autoscaler.yaml']) {
    assert.ok(existsSync(join(out, f)), f);
  }
  assert.equal(JSON.parse(readFileSync(join(out, 'spec.json'), 'utf8')).kubernetes.version, 'v1.36.1');
  assert.match(readFileSync(join(out, 'user-data/control-plane-init.yaml'), 'utf8'), /203\.0\.113\.9/);
});

test('scripts/render.ts --image: the image\'s properties choose the user-data format (Fedora CoreOS: Ignition)', async () => {
  const out = join(mkdtempSync(join(tmpdir(), 'render-')), 'out');
  const cluster = JSON.stringify({ uuid: '5d12f6fd-a196-4bf0-ae4c-1f639a523a52', name: 'demo', project_id: '4c2a3b1e9f8d47a6b5c4d3e2f1a09b8c', master_count: 1, node_count: 1 });
  await run(process.execPath, [...tsx, '--template', '{"coe":"kubernetes"}', '--cluster', cluster, '--image', '{"os_distro":"fedora-coreos","os_version":"43"}', '--out', out, '--pki-dir', fixtures], { cwd: root });
  const ign = JSON.parse(readFileSync(join(out, 'user-data/worker.ign'), 'utf8'));
  assert.equal(ign.ignition.version, '3.3.0');
  assert.ok(!existsSync(join(out, 'user-data/worker.yaml')));
  await assert.rejects(
    run(process.execPath, [...tsx, '--template', '{"coe":"kubernetes"}', '--cluster', cluster, '--image', '{"os_distro":"centos"}', '--out', out, '--pki-dir', fixtures], { cwd: root }),
    (e: { stderr?: string }) => /os_distro is 'centos'/.test(e.stderr ?? ''),
  );
});

test('scripts/render.ts reports label errors like the API and exits 1', async () => {
  const cluster = JSON.stringify({ uuid: '5d12f6fd-a196-4bf0-ae4c-1f639a523a52', name: 'demo' });
  await assert.rejects(
    run(process.execPath, [...tsx, '--template', '{"coe":"kubernetes"}', '--cluster', cluster, '--labels', '{"kube_tag":"banana"}', '--out', mkdtempSync(join(tmpdir(), 'render-'))], { cwd: root }),
    (e: { code?: number; stderr?: string }) => e.code === 1 && /error 400 invalid_label: Invalid input for label kube_tag/.test(e.stderr ?? ''),
  );
});
