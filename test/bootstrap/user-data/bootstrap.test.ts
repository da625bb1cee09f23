// The script a node runs at first boot: its kernel settings, Kubernetes and containerd (the image's, or installed),
// the provider id, then kubeadm init or join, every failure one console line. Every rendered script passes
// Debian's shellcheck (installed when missing), over the whole matrix of test/support/bootstrap-matrix.ts: 3
// Kubernetes minors × 2 CNIs × 3 roles × 2 distros × 3 images × 2 add-on sets; identical scripts are checked once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { aptInstall } from '../../support/apt.js';
import { matrix } from '../../support/bootstrap-matrix.js';
import { bootstrapScript, CONSOLE_PREFIX, installsAtBoot, type BootstrapInput } from '../../../src/bootstrap/user-data/bootstrap.js';
import type { NodeImage } from '../../../src/cluster-spec/image.js';
import { bootstrapScriptOf } from '../../support/node-files.js';
import { specOf } from '../../support/labels.js';
import { workerUserData as worker } from '../../support/user-data.js';

const SHELLCHECK = '/usr/bin/shellcheck';
const run = promisify(execFile);

async function ensureShellcheck(): Promise<void> {
  if (existsSync(SHELLCHECK)) return;
  await aptInstall(['shellcheck']);
  assert.ok(existsSync(SHELLCHECK), 'shellcheck installed');
}

async function shellcheck(files: string[]): Promise<string> {
  try {
    await run(SHELLCHECK, ['--severity=style', '--format=gcc', ...files], { maxBuffer: 16 * 1024 * 1024 });
    return '';
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string };
    return `${err.stdout ?? ''}${err.stderr ?? String(e)}`;
  }
}

test('every rendered bootstrap script passes shellcheck (style level), over the whole matrix', { timeout: 300_000 }, async () => {
  await ensureShellcheck();
  const renderings = matrix();
  assert.equal(renderings.length, 216);
  const dir = mkdtempSync(join(tmpdir(), 'shellcheck-'));
  const unique = new Map<string, string>();
  for (const r of renderings) {
    const script = bootstrapScriptOf(r.userData);
    assert.ok(script.startsWith('#!/bin/bash\n'), r.name);
    const hash = createHash('sha256').update(script).digest('hex');
    if (unique.has(hash)) continue;
    const path = join(dir, `${r.name}.sh`);
    writeFileSync(path, script);
    unique.set(hash, path);
  }
  const findings = await shellcheck([...unique.values()]);
  assert.equal(findings, '', 'shellcheck findings');
  console.log(`shellcheck: ${renderings.length} renderings, ${unique.size} distinct scripts, no finding`);
});

test('the check really fails a script with a finding', async () => {
  await ensureShellcheck();
  const f = join(mkdtempSync(join(tmpdir(), 'shellcheck-')), 'bad.sh');
  writeFileSync(f, '#!/bin/bash\nfor f in $(ls); do echo $f; done\n');
  assert.match(await shellcheck([f]), /SC2045|SC2086/);
});

test('a prebuilt image (kube_version) and a disabled install: nothing is downloaded, a missing kubeadm fails naming why', () => {
  for (const [image, labels, why] of [
    [{ distro: 'ubuntu', kubeVersion: 'v1.35.2' }, {}, 'the image says it carries Kubernetes v1.35.2 (property kube_version) but has'],
    [{ distro: 'ubuntu', kubeVersion: null }, { kube_install_at_boot: 'false' }, 'installing at boot is disabled (label kube_install_at_boot=false) and the image has'],
    [{ distro: 'fedora-coreos', kubeVersion: null }, { kube_install_at_boot: 'false' }, 'installing at boot is disabled (label kube_install_at_boot=false) and the image has'],
  ] as [NodeImage, Record<string, string>, string][]) {
    const script = bootstrapScriptOf(worker({ image }, labels));
    assert.doesNotMatch(script, /pkgs\.k8s\.io|dl\.k8s\.io|github\.com|install_kubernetes/);
    assert.ok(script.includes(`have_kubernetes || fail "kubeadm and kubelet 1.35.x are required; ${why}: $(found kubeadm version -o short)"`), script);
  }
});

const UBUNTU: NodeImage = { distro: 'ubuntu', kubeVersion: null };
const script = (over: Partial<BootstrapInput> = {}, labels: Record<string, string> = {}) =>
  bootstrapScript(specOf({ labels: { kube_tag: 'v1.35.2', ...labels } }), { role: 'worker', nodeName: 'k1-5d12f-worker-b0000', image: UBUNTU, endpoint: '10.0.0.10:6443', token: 'abcdef.0123456789abcdef', endpointAddress: '10.0.0.10', disks: [], ...over });

test('installsAtBoot: when allowed and the image does not say what it carries', () => {
  assert.equal(installsAtBoot(specOf(), UBUNTU), true);
  assert.equal(installsAtBoot(specOf(), { distro: 'ubuntu', kubeVersion: 'v1.35.5' }), false);
  assert.equal(installsAtBoot(specOf({ labels: { kube_install_at_boot: 'false' } }), UBUNTU), false);
});

test('the script: bash, strict, each failure one console line with the failing command; kernel modules and sysctls before containerd and the kubelet', () => {
  const s = script();
  const lines = s.split('\n');
  assert.deepEqual(lines.slice(0, 1), ['#!/bin/bash']);
  assert.match(lines[1]!, /^# magnum-ts worker bootstrap for k1-5d12f-worker-b0000 \(Kubernetes v1\.35\.2, calico, ubuntu\)$/);
  assert.ok(s.includes(`log() { echo "${CONSOLE_PREFIX} $*"; }`) && s.includes(`fail() { echo "${CONSOLE_PREFIX} FAILED: $*" >&2; exit 1; }`));
  assert.ok(s.includes("trap 'fail \"line ${LINENO}: ${BASH_COMMAND}\"' ERR"));
  const at = (needle: string) => s.indexOf(needle);
  assert.ok(at('modprobe br_netfilter') < at('systemctl restart containerd') && at('systemctl restart containerd') < at('systemctl enable kubelet'));
  assert.ok(at('systemctl enable kubelet') < at('kubeadm join'), 'the provider id is set in the config before the join');
  assert.ok(s.endsWith('\n'));
});

test('the instance id: cloud-init\'s on Ubuntu, the metadata service\'s on Fedora CoreOS (which also runs SELinux permissive); written into kubeadm\'s config', () => {
  const u = script();
  assert.match(u, /iid="\$\(cloud-init query v1\.instance_id\)"/);
  assert.doesNotMatch(u, /setenforce|169\.254\.169\.254/);
  assert.match(u, /sed -i "s\|__INSTANCE_ID__\|\$\{iid\}\|" \/etc\/kubernetes\/kubeadm\/config\.yaml/);
  const f = script({ image: { distro: 'fedora-coreos', kubeVersion: null } });
  assert.match(f, /setenforce 0 \|\| true/);
  assert.match(f, /\[ -n "\$iid" \] \|\| fail "no instance uuid/);
  assert.doesNotMatch(f, /cloud-init/);
});

test('init runs kubeadm init once; joins retry 60 times; a joining control plane first waits for its turn, read with the bootstrap token', () => {
  const init = script({ role: 'init' });
  assert.match(init, /kubeadm init --config \/etc\/kubernetes\/kubeadm\/config\.yaml --skip-token-print\nlog "kubeadm init done"\n$/);
  assert.doesNotMatch(init, /kubeadm join|magnum-join-turn/);
  const worker = script();
  assert.match(worker, /for attempt in \$\(seq 1 60\); do\n  if kubeadm join --config/);
  assert.match(worker, /kubeadm reset --force/, 'a failed attempt is undone before the next');
  assert.doesNotMatch(worker, /magnum-join-turn/);
  const cp = script({ role: 'control-plane', nodeName: 'k1-5d12f-control-plane-a0001' });
  assert.ok(cp.includes("curl -fsS --max-time 10 --cacert /etc/kubernetes/pki/ca.crt -H 'Authorization: Bearer abcdef.0123456789abcdef' 'https://10.0.0.10:6443/api/v1/namespaces/kube-system/configmaps/magnum-join-turn'"));
  assert.match(cp, /grep -Eq '"node": \*"k1-5d12f-control-plane-a0001"'/);
  assert.ok(cp.indexOf('magnum-join-turn') < cp.indexOf('kubeadm join'));
  assert.match(cp, /fail "not given a turn to join within an hour"/);
});

test('an etcd volume\'s lost+found goes before kubeadm sees /var/lib/etcd', () => {
  const etcd = { label: 'etcd' as const, device: '/dev/vdb', mountPoint: '/var/lib/etcd', volume: { sizeGb: 10, type: '' } };
  assert.match(script({ role: 'init', disks: [etcd] }), /rmdir \/var\/lib\/etcd\/lost\+found 2>\/dev\/null \|\| true/);
  assert.doesNotMatch(script({ role: 'init' }), /lost\+found/);
});

test('a node that installs: the version checked after the install, the minor required, arm64 and amd64 only', () => {
  const s = script();
  assert.match(s, /have_kubernetes\(\) \{ command -v kubelet >\/dev\/null 2>&1 && command -v kubeadm >\/dev\/null 2>&1 && kubeadm version -o short \| grep -q '\^v1\\\.35\\\.'; \}/);
  assert.match(s, /x86_64\) arch=amd64 ;;\n  aarch64\) arch=arm64 ;;\n  \*\) fail "no Kubernetes release for the architecture/);
  assert.match(s, /have_kubernetes \|\| fail "kubeadm and kubelet 1\.35\.x are required: \$\(found kubeadm version -o short\)"/);
  assert.match(s, /have_containerd \|\| fail "containerd 2\.x is required: /);
});

