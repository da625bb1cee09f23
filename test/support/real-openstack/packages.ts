// Debian bookworm's OpenStack Zed services and what they run on, installed when missing (as root, about 300
// packages on a bare machine). The packages' questions are answered up front so that none configures a
// database or registers an endpoint by itself, and a policy-rc.d denying init scripts keeps them from starting
// daemons of their own. The install goes through test/support/apt.ts, which takes the tests' apt lock.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { aptInstall } from '../apt.js';

const run = promisify(execFile);

/** Each package and a file that shows it is really there (a package can be "installed" with files missing). */
const PACKAGES: [pkg: string, probe: string][] = [
  ['mariadb-server', '/usr/sbin/mariadbd'],
  ['rabbitmq-server', '/usr/lib/rabbitmq/bin/rabbitmq-server'],
  ['python3-pymysql', '/usr/lib/python3/dist-packages/pymysql'],
  ['keystone', '/usr/bin/keystone-manage'],
  ['uwsgi', '/usr/bin/uwsgi'],
  ['uwsgi-plugin-python3', '/usr/lib/uwsgi/plugins/python3_plugin.so'],
  ['placement-api', '/usr/bin/placement-api'],
  ['nova-api', '/usr/bin/nova-api-wsgi'],
  ['nova-conductor', '/usr/bin/nova-conductor'],
  ['nova-scheduler', '/usr/bin/nova-scheduler'],
  // Not nova-compute: it pulls a hypervisor. The compute service runs from python3-nova's nova.cmd.compute.
  ['python3-nova', '/usr/lib/python3/dist-packages/nova/cmd/compute.py'],
  ['neutron-server', '/usr/bin/neutron-server'],
  ['octavia-api', '/usr/bin/octavia-wsgi'],
  ['octavia-worker', '/usr/bin/octavia-worker'],
  ['glance-api', '/usr/bin/glance-api'],
  ['cinder-api', '/usr/bin/cinder-wsgi'],
  ['cinder-scheduler', '/usr/bin/cinder-scheduler'],
  ['cinder-volume', '/usr/bin/cinder-volume'],
  ['openssl', '/usr/bin/openssl'],
  ['util-linux', '/usr/bin/flock'],
];

/** Debconf answers: no database configuration, no endpoint registration, no Keystone work by the packages. */
const DEBCONF = [
  'keystone keystone/configure_db boolean false',
  'keystone keystone/create-admin-tenant boolean false',
  'keystone keystone/register-endpoint boolean false',
  ...['placement', 'nova', 'neutron', 'octavia', 'glance', 'cinder'].flatMap((s) => [
    `${s}-common ${s}/configure_db boolean false`,
    `${s}-common ${s}/configure_ksat boolean false`,
    `${s}-api ${s}/configure_api-endpoint boolean false`,
  ]),
  'nova-api novaapi/configure_db boolean false',
  'neutron-common neutron/configure_nova boolean false',
];

async function installed(pkg: string): Promise<boolean> {
  try {
    const { stdout } = await run('dpkg-query', ['-W', '-f=${Status}', pkg]);
    return /install ok installed/.test(stdout);
  } catch {
    return false;
  }
}

export async function missingPackages(): Promise<string[]> {
  const states = await Promise.all(PACKAGES.map(async ([pkg, probe]) => (await installed(pkg)) && existsSync(probe)));
  return PACKAGES.filter((_, i) => !states[i]).map(([pkg]) => pkg);
}

function lastLine(text: string | undefined): string {
  const lines = (text ?? '').split('\n').map((l) => l.trim()).filter(Boolean);
  return lines.find((l) => /^E: /.test(l)) ?? lines[lines.length - 1] ?? '';
}

let ready: Promise<void> | undefined;

/** Installs whatever of the cloud's packages is missing; resolves at once when nothing is. */
export function ensureOpenStackPackages(): Promise<void> {
  ready ??= install().catch((e) => {
    ready = undefined;
    throw e;
  });
  return ready;
}

async function install(): Promise<void> {
  const missing = await missingPackages();
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) throw new Error(`package ${missing[0]} is not installed and installing it needs root`);
  const selections = run('debconf-set-selections', []);
  selections.child.stdin?.end(`${DEBCONF.join('\n')}\n`);
  await selections;
  const policyRcD = '/usr/sbin/policy-rc.d';
  const created = !existsSync(policyRcD);
  if (created) await writeFile(policyRcD, '#!/bin/sh\n# magnum-ts tests: no init script starts a daemon during an install\nexit 101\n', { mode: 0o755 });
  try {
    await aptInstall(missing);
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string };
    const still = await missingPackages();
    throw new Error(`could not install package ${still[0] ?? missing[0]}: ${lastLine(err.stderr) || lastLine(err.stdout) || String(e)}`);
  } finally {
    if (created) await rm(policyRcD, { force: true });
  }
  const still = await missingPackages();
  if (still.length > 0) throw new Error(`could not install package ${still[0]}: still missing after apt-get install`);
}

/** The versions the one-time bring-up depends on (database schemas): a change rebuilds the pristine copy. */
export async function packageVersions(): Promise<string> {
  const pkgs = ['mariadb-server', 'keystone', 'python3-placement', 'python3-nova', 'python3-neutron', 'python3-octavia', 'python3-glance', 'python3-cinder'];
  const { stdout } = await run('dpkg-query', ['-W', '-f=${Package}=${Version}\n', ...pkgs]);
  return stdout.trim().split('\n').sort().join(' ');
}
