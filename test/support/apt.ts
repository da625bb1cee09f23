// Debian packages the tests need (the real CLI and its plugins, cloud-init, Keystone), installed
// when missing. Test files run in parallel and several may find the same tools missing on a fresh
// machine: every install takes one lock (flock(1), util-linux) and waits for dpkg's own, so they
// queue instead of failing on /var/lib/dpkg/lock-frontend. The package lists are refreshed only
// when an install cannot find a package.
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const LOCK = join(tmpdir(), 'magnum-tests-apt.lock');
const APT = 'apt-get -o DPkg::Lock::Timeout=900 -y -q';
const SCRIPT = `${APT} install "$@" || { ${APT} update && ${APT} install "$@"; }`;

export async function aptInstall(pkgs: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (pkgs.length === 0) return;
  await run('flock', [LOCK, 'sh', '-c', SCRIPT, 'apt-install', ...pkgs], {
    env: { ...env, DEBIAN_FRONTEND: 'noninteractive' },
    timeout: 1_800_000,
    maxBuffer: 64 * 1024 * 1024,
  });
}
