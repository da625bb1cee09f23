// The one-time part of the bring-up (about a minute and a half): an empty MariaDB datadir with one database
// per service, every service's schema (db syncs), Nova's cells, Keystone's bootstrap (admin, roles admin,
// member and reader, the region and the identity endpoint) and keys, and Octavia's CA. It is kept as a
// pristine copy (<state>/pristine) and copied into the live folder at each cold start, so a cloud always starts
// from the same clean state and skips all of this.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, chown, mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DATABASES, REGION, SECRETS, dbUrl, dirOf, url, type Layout } from './layout.js';
import { ADMIN, ensureIdentity, type IdentityIds } from './identity.js';
import { packageVersions } from './packages.js';
import { livePid, runTool, startDaemon, stopGroup, userIds, waitReady } from './procs.js';
import { Session } from './rest.js';
import { mariadbInstallArgs, mariadbSocket, type CloudDaemon, type ServiceFiles } from './services-infra.js';

const identityFile = (l: Layout) => join(l.live, 'identity.json');

/** The project ids the one-time bring-up recorded (the live folder's copy). */
export async function recordedIdentity(l: Layout): Promise<IdentityIds['projectIds']> {
  return JSON.parse(await readFile(identityFile(l), 'utf8')) as IdentityIds['projectIds'];
}

/** Bump when what the one-time bring-up leaves changes: older pristine copies are then rebuilt. */
const PRISTINE_FORMAT = 2;

/** The parts of the live folder that the pristine copy holds (the rest is configuration, written each start). */
const PRISTINE_PARTS = ['mariadb/data', 'keystone/fernet-keys', 'keystone/credential-keys', 'octavia/certs', 'identity.json'];

const GLUE_DIR = fileURLToPath(new URL('./python/', import.meta.url));

/** Which user owns each service folder. */
const OWNER: Record<string, string> = {
  mariadb: 'mysql', rabbitmq: 'rabbitmq', keystone: 'keystone', placement: 'placement', nova: 'nova',
  neutron: 'neutron', glance: 'glance', octavia: 'octavia', cinder: 'cinder',
};

async function chownTree(path: string, uid: number, gid: number): Promise<void> {
  await chown(path, uid, gid);
  for (const entry of await readdir(path, { withFileTypes: true })) {
    const p = join(path, entry.name);
    if (entry.isDirectory()) await chownTree(p, uid, gid);
    else await chown(p, uid, gid);
  }
}

/** Writes the Python glue (modules and the dist-info that registers their entry points) into <state>/python. */
export async function writeGlue(l: Layout): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const name of await readdir(GLUE_DIR)) if (name.endsWith('.py')) files[name] = await readFile(join(GLUE_DIR, name), 'utf8');
  const distInfo = 'magnum_ts_realos_glue-1.0.dist-info';
  files[`${distInfo}/METADATA`] = 'Metadata-Version: 2.1\nName: magnum-ts-realos-glue\nVersion: 1.0\n';
  files[`${distInfo}/entry_points.txt`] = [
    '[neutron.ml2.mechanism_drivers]',
    'realos_bind_all = realos_ml2_bind_all:BindAllMechanismDriver',
    '',
    '[octavia.network.drivers]',
    'realos_noop_deleting_vip = realos_octavia_network:NoopNetworkDriverDeletingVip',
    '',
  ].join('\n');
  await mkdir(join(l.python, distInfo), { recursive: true });
  for (const [name, text] of Object.entries(files)) await writeFile(join(l.python, name), text, { mode: 0o644 });
  await chmod(l.python, 0o755);
  return files;
}

/** Writes every service's files into the live folder, each service folder owned by its user. */
export async function writeServiceFiles(l: Layout, services: ServiceFiles[]): Promise<void> {
  await mkdir(l.live, { recursive: true, mode: 0o755 });
  await chmod(l.live, 0o755);
  for (const s of services) {
    for (const [folder, files] of Object.entries(s.files)) {
      const dir = join(l.live, folder);
      await mkdir(dir, { recursive: true });
      for (const [name, text] of Object.entries(files)) {
        await writeFile(join(dir, name), text, { mode: name === '.erlang.cookie' ? 0o400 : 0o640 });
        if (name === '.erlang.cookie') await chmod(join(dir, name), 0o400);
      }
    }
  }
  for (const [service, user] of Object.entries(OWNER)) {
    const dir = dirOf(l, service);
    await mkdir(dir, { recursive: true });
    const { uid, gid } = await userIds(user);
    await chownTree(dir, uid, gid);
    await chmod(dir, 0o750);
  }
  for (const repo of ['keystone/fernet-keys', 'keystone/credential-keys']) await chmod(join(l.live, repo), 0o700);
}

/** What the pristine copy was made from: package versions, ports, format. */
export async function pristineStamp(l: Layout): Promise<string> {
  return `format ${PRISTINE_FORMAT}; ports ${JSON.stringify(l.ports)}; ${await packageVersions()}`;
}

export function pristineUsable(l: Layout, stamp: string): boolean {
  try {
    return readFileSync(join(l.pristine, 'STAMP'), 'utf8') === stamp && PRISTINE_PARTS.every((p) => existsSync(join(l.pristine, p)));
  } catch {
    return false;
  }
}

/** Replaces the live folder's data by the pristine copy (ownership and modes kept). */
export async function restorePristine(l: Layout): Promise<void> {
  await rm(l.live, { recursive: true, force: true });
  await mkdir(l.live, { recursive: true, mode: 0o755 });
  for (const part of PRISTINE_PARTS) {
    await mkdir(join(l.live, part, '..'), { recursive: true });
    await runTool('copying the pristine cloud', 'cp', ['-a', join(l.pristine, part), join(l.live, part)]);
  }
}

const sql = (l: Layout, statements: string) =>
  runTool('MariaDB set-up', '/usr/bin/mariadb', ['--no-defaults', '-S', mariadbSocket(l), '-uroot'], { input: statements });

/**
 * The one-time bring-up, in the (emptied) live folder, services' files already written; MariaDB is started and
 * stopped here, and Keystone too, for the users, roles and catalog (identity.ts), whose project ids are kept in
 * identity.json. Ends with the pristine copy saved.
 */
export async function bootstrap(l: Layout, db: CloudDaemon, keystone: CloudDaemon, stamp: string, note: (what: string) => void): Promise<void> {
  await runTool('mariadb-install-db', '/usr/bin/mariadb-install-db', mariadbInstallArgs(l), { cwd: dirOf(l, 'mariadb') });
  const pid = await startDaemon(db);
  await waitReady(db, pid, db.ready, db.readyWithinMs, 'listening');
  await waitReady(db, pid, () => sql(l, 'SELECT 1;').then(() => true, () => false), 30_000, 'answering SQL');
  await sql(
    l,
    [
      ...DATABASES.map((d) => `CREATE DATABASE IF NOT EXISTS ${d} CHARACTER SET utf8mb4;`),
      `CREATE USER IF NOT EXISTS 'openstack'@'127.0.0.1' IDENTIFIED BY '${SECRETS.db}';`,
      ...DATABASES.map((d) => `GRANT ALL PRIVILEGES ON ${d}.* TO 'openstack'@'127.0.0.1';`),
      'FLUSH PRIVILEGES;',
    ].join('\n'),
  );
  note('MariaDB initialised, databases made');
  const conf = (service: string, file: string) => join(dirOf(l, service), file);
  const as = (user: string, what: string, cmd: string, args: string[]) =>
    runTool(what, cmd, args, { user, cwd: dirOf(l, user), env: { PATH: '/usr/bin:/bin', HOME: dirOf(l, user), LANG: 'C.UTF-8' } });
  const ksConf = ['--config-file', conf('keystone', 'keystone.conf')];
  const novaConf = ['--config-file', conf('nova', 'nova.conf')];
  const keystoneUrl = url(l.ports.keystone, '/v3');
  await Promise.all([
    (async () => {
      await as('keystone', 'keystone db_sync', '/usr/bin/keystone-manage', [...ksConf, 'db_sync']);
      for (const step of ['fernet_setup', 'credential_setup']) {
        await as('keystone', `keystone ${step}`, '/usr/bin/keystone-manage', [...ksConf, step, '--keystone-user', 'keystone', '--keystone-group', 'keystone']);
      }
      await as('keystone', 'keystone bootstrap', '/usr/bin/keystone-manage', [
        ...ksConf, 'bootstrap',
        '--bootstrap-password', SECRETS.admin,
        '--bootstrap-username', 'admin',
        '--bootstrap-project-name', 'admin',
        '--bootstrap-role-name', 'admin',
        '--bootstrap-service-name', 'keystone',
        '--bootstrap-region-id', REGION,
        '--bootstrap-public-url', keystoneUrl,
        '--bootstrap-internal-url', keystoneUrl,
        '--bootstrap-admin-url', keystoneUrl,
      ]);
    })(),
    (async () => {
      await as('nova', 'nova api_db sync', '/usr/bin/nova-manage', [...novaConf, 'api_db', 'sync']);
      await as('nova', 'nova map_cell0', '/usr/bin/nova-manage', [...novaConf, 'cell_v2', 'map_cell0', '--database_connection', dbUrl(l.ports, 'nova_cell0')]);
      await as('nova', 'nova create_cell', '/usr/bin/nova-manage', [...novaConf, 'cell_v2', 'create_cell', '--name', 'cell1']);
      await as('nova', 'nova db sync', '/usr/bin/nova-manage', [...novaConf, 'db', 'sync']);
    })(),
    as('neutron', 'neutron-db-manage upgrade heads', '/usr/bin/neutron-db-manage', ['--config-file', conf('neutron', 'neutron.conf'), 'upgrade', 'heads']),
    (async () => {
      await as('placement', 'placement db sync', '/usr/bin/placement-manage', ['--config-file', conf('placement', 'placement.conf'), 'db', 'sync']);
      await as('glance', 'glance db_sync', '/usr/bin/glance-manage', ['--config-file', conf('glance', 'glance-api.conf'), 'db_sync']);
      await as('octavia', 'octavia-db-manage upgrade head', '/usr/bin/octavia-db-manage', ['--config-file', conf('octavia', 'octavia-api.conf'), 'upgrade', 'head']);
      await as('cinder', 'cinder db sync', '/usr/bin/cinder-manage', ['--config-file', conf('cinder', 'cinder.conf'), 'db', 'sync']);
    })(),
    makeOctaviaCa(l),
  ]);
  note('schemas made (db syncs), Keystone bootstrapped, Octavia CA made');
  const ks = await startDaemon(keystone);
  try {
    await waitReady(keystone, ks, keystone.ready, keystone.readyWithinMs, 'answering');
    const ids = await ensureIdentity(new Session(url(l.ports.keystone, '/v3'), ADMIN), l.ports);
    await writeFile(identityFile(l), JSON.stringify(ids.projectIds));
    note('Keystone users, roles and catalog made');
  } finally {
    await stopGroup(keystone, ks);
  }
  const running = await livePid(db, db.mark);
  if (running) await stopGroup(db, running, 60_000);
  await savePristine(l, stamp);
}

/** The CA Octavia's local certificate generator signs with (amphora certificates nobody will ever present). */
async function makeOctaviaCa(l: Layout): Promise<void> {
  const certs = join(dirOf(l, 'octavia'), 'certs');
  await mkdir(certs, { recursive: true });
  await runTool('making the Octavia CA', '/usr/bin/openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-sha256', '-days', '3650',
    '-subj', '/CN=magnum-ts real-openstack test Octavia CA',
    '-keyout', join(certs, 'ca.key'), '-out', join(certs, 'ca.pem'),
    '-passout', `pass:${SECRETS.octaviaCa}`,
  ]);
  const { uid, gid } = await userIds('octavia');
  await chownTree(certs, uid, gid);
  await chmod(join(certs, 'ca.key'), 0o600);
}

async function savePristine(l: Layout, stamp: string): Promise<void> {
  const tmp = `${l.pristine}.tmp`;
  await rm(tmp, { recursive: true, force: true });
  for (const part of PRISTINE_PARTS) {
    await mkdir(join(tmp, part, '..'), { recursive: true });
    await runTool('saving the pristine cloud', 'cp', ['-a', join(l.live, part), join(tmp, part)]);
  }
  await writeFile(join(tmp, 'STAMP'), stamp);
  await rm(l.pristine, { recursive: true, force: true });
  await rename(tmp, l.pristine);
}

/** A hash of everything the running cloud was started from: when it changes, the cloud is restarted. */
export function configHash(services: ServiceFiles[], glue: Record<string, string>, stamp: string): string {
  const h = createHash('sha256');
  h.update(stamp);
  for (const s of services) {
    h.update(JSON.stringify(s.files));
    for (const d of s.daemons) h.update(JSON.stringify([d.name, d.cmd, d.args, d.env ?? {}]));
  }
  h.update(JSON.stringify(glue));
  return h.digest('hex');
}
