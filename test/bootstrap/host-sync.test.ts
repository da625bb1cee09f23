// The host-sync agent's script (src/bootstrap/host-sync.ts) as a real shell runs it: it passes shellcheck,
// copies each source=target in order as 0600 files without leaving temporaries, then touches its
// readiness file and stays; a source it cannot read stops it before the readiness file. And the
// objects: a Secret with the files, a DaemonSet on the control planes mounting each target's folder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { HOST_SYNC_COMMAND, HOST_SYNC_SCRIPT, hostSyncObjects, sha256 } from '../../src/bootstrap/host-sync.js';
import { aptInstall } from '../support/apt.js';

const SHELLCHECK = '/usr/bin/shellcheck';

test('the script passes shellcheck', async () => {
  if (!existsSync(SHELLCHECK)) await aptInstall(['shellcheck']);
  const file = join(mkdtempSync(join(tmpdir(), 'host-sync-')), 'sync.sh');
  writeFileSync(file, `#!/bin/sh\n${HOST_SYNC_SCRIPT}`);
  await promisify(execFile)(SHELLCHECK, ['--severity=style', '--shell=sh', file]);
});

/** Runs the agent with /bin/sh; resolves with the exit code, or 'running' once `ready` exists. */
function runAgent(args: string[], ready: string): Promise<number | 'running'> {
  const [sh, c, script, name] = HOST_SYNC_COMMAND;
  const child = spawn(sh, [c, script, name, ...args], { stdio: 'ignore' });
  return new Promise((resolve) => {
    const poll = setInterval(() => {
      if (!existsSync(ready)) return;
      clearInterval(poll);
      child.kill('SIGKILL');
      resolve('running');
    }, 10);
    child.on('exit', (code) => {
      clearInterval(poll);
      resolve(existsSync(ready) ? 'running' : (code ?? -1));
    });
  });
}

test('it copies in order, 0600, atomically, then reports ready; a missing source stops it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'host-sync-'));
  for (const d of ['src', 'host/conf', 'host/manifests', 'state']) mkdirSync(join(dir, d), { recursive: true });
  writeFileSync(join(dir, 'src/a'), 'conf v2\n');
  writeFileSync(join(dir, 'src/b'), 'manifest v2\n');
  writeFileSync(join(dir, 'host/conf/cloud.conf'), 'conf v1\n', { mode: 0o644 });
  const ready = join(dir, 'state/synced');
  const outcome = await runAgent([ready, `${dir}/src/a=${dir}/host/conf/cloud.conf`, `${dir}/src/b=${dir}/host/manifests/plugin.yaml`], ready);
  assert.equal(outcome, 'running');
  assert.equal(readFileSync(join(dir, 'host/conf/cloud.conf'), 'utf8'), 'conf v2\n');
  assert.equal(readFileSync(join(dir, 'host/manifests/plugin.yaml'), 'utf8'), 'manifest v2\n');
  assert.equal(statSync(join(dir, 'host/conf/cloud.conf')).mode & 0o777, 0o600, 'only root reads it');
  assert.deepEqual(readdirSync(join(dir, 'host/manifests')), ['plugin.yaml'], 'no temporary file left where kubelet looks');

  const again = join(dir, 'state/again');
  const failed = await runAgent([again, `${dir}/src/missing=${dir}/host/conf/cloud.conf`, `${dir}/src/b=${dir}/host/manifests/other.yaml`], again);
  assert.notEqual(failed, 'running', 'not ready');
  assert.equal(existsSync(join(dir, 'host/manifests/other.yaml')), false, 'it stopped at the first failure');
});

test('the objects: a Secret of the files, a DaemonSet on the control planes with each target folder mounted', () => {
  const [secret, ds] = hostSyncObjects({ name: 'x-sync', image: 'busybox:1.37.0', files: [{ path: '/etc/kubernetes/x/x.conf', content: 'x' }, { path: '/etc/kubernetes/manifests/x.yaml', content: 'y' }] }) as Record<string, any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any
  assert.deepEqual([secret!.kind, secret!.metadata.namespace, Object.keys(secret!.data)], ['Secret', 'kube-system', ['file-0', 'file-1']]);
  const pod = ds!.spec.template.spec;
  assert.deepEqual(pod.nodeSelector, { 'node-role.kubernetes.io/control-plane': '' });
  assert.deepEqual(pod.containers[0].command, [...HOST_SYNC_COMMAND]);
  assert.deepEqual(pod.containers[0].args, ['/state/synced', '/sync/file-0=/host/etc/kubernetes/x/x.conf', '/sync/file-1=/host/etc/kubernetes/manifests/x.yaml']);
  assert.deepEqual(pod.volumes.filter((v: { hostPath?: unknown }) => v.hostPath).map((v: { hostPath: { path: string } }) => v.hostPath.path), ['/etc/kubernetes/x', '/etc/kubernetes/manifests']);
  assert.ok(ds!.spec.template.metadata.annotations['checksum/secrets'], 'a change of the files replaces its pods');
});

test('the pods are replaced when a file\'s content or path changes, not otherwise; one volume per target folder, the Secret read-only to root', () => {
  const objects = (files: { path: string; content: string }[]) => hostSyncObjects({ name: 'x-sync', image: 'busybox:1.37.0', files }) as Record<string, any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any
  const checksum = (files: { path: string; content: string }[]) => objects(files)[1]!.spec.template.metadata.annotations['checksum/secrets'];
  const files = [{ path: '/etc/kubernetes/a/one.conf', content: '1' }, { path: '/etc/kubernetes/a/two.conf', content: '2' }];
  assert.equal(checksum(files), checksum(structuredClone(files)));
  assert.notEqual(checksum(files), checksum([files[0]!, { ...files[1]!, content: '3' }]));
  assert.notEqual(checksum(files), checksum([files[0]!, { ...files[1]!, path: '/etc/kubernetes/b/two.conf' }]));
  const pod = objects(files)[1]!.spec.template.spec;
  assert.deepEqual(pod.volumes.map((v: { name: string }) => v.name), ['files', 'state', 'host-etc-kubernetes-a']);
  assert.deepEqual(pod.volumes[0].secret, { secretName: 'x-sync', defaultMode: 0o400 });
  assert.equal(pod.automountServiceAccountToken, false);
  assert.equal(sha256('x'), '2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881');
});
