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
const INSTALL = `${APT} install "$@" || { ${APT} update && ${APT} install "$@"; }`;
// A policy-rc.d exiting 101 for the install's length (made and removed inside the lock, and only when
// none was there): maintainer scripts start no daemon (a package's service would take its port).
const NO_SERVICES = `P=/usr/sbin/policy-rc.d; made=
if [ ! -e "$P" ]; then printf '#!/bin/sh\\nexit 101\\n' > "$P" && chmod 755 "$P" && made=1; fi
rc=0; { ${INSTALL}; } || rc=$?
[ -n "$made" ] && rm -f "$P"
exit $rc`;

export async function aptInstall(pkgs: string[], env: NodeJS.ProcessEnv = process.env, opts: { noServices?: boolean } = {}): Promise<void> {
  if (pkgs.length === 0) return;
  await run('flock', [LOCK, 'sh', '-c', opts.noServices ? NO_SERVICES : INSTALL, 'apt-install', ...pkgs], {
    env: { ...env, DEBIAN_FRONTEND: 'noninteractive' },
    timeout: 1_800_000,
    maxBuffer: 64 * 1024 * 1024,
  });
}
