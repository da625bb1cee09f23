// Test harness: Debian bookworm's real OpenStack Zed services on loopback, with fake back ends (nothing boots,
// no packet flows): Keystone, Placement, Nova, Neutron, Glance, Octavia and Cinder on a MariaDB and a RabbitMQ
// of their own. Follows shared/spec/real-openstack.md.
//
//   const cloud = await startRealOpenStack();
//   cloud.authUrl                    http://127.0.0.1:<base>/v3 (Keystone; the catalog lists the rest)
//   cloud.region                     'RegionOne'
//   cloud.admin                      the cloud admin (project admin, role admin)
//   cloud.magnum                     the product's service user: project service, roles admin and service, as a
//                                    Magnum service user has on a real cloud (devstack gives it admin; `service`
//                                    is what keystonemiddleware requires of service tokens since OSSA-2023-003)
//   cloud.demo                       project demo's users: member (member + load-balancer_member), memberOnly
//                                    (member: 403 from Octavia under Zed's default policy), reader
//   cloud.projectIds                 admin, service, demo
//   cloud.endpoints                  identity, compute, network, load-balancer, image, placement, volumev3, block-storage
//   cloud.publicNetwork              the external network `public` (flat, shared, default) on 127.24.4.0/24
//   cloud.flavors / cloud.images     name → id (m1.tiny..m1.large; the simulator's node image names)
//   cloud.newTenant(prefix)          a fresh project with its own three users, for a test that counts leftovers
//   cloud.setOctaviaPolicy(mode)     'default' (Zed's) or 'admin_or_owner' (devstack's); the cloud is shared: a
//                                    test that switches it switches it back (when its process dies first, the
//                                    next start resets it)
//   cloud.stop()                     stops every daemon of the cloud (by PID). Tests do not call it: the cloud
//                                    stays up for the next test file and run (stopRealOpenStack() does the same)
//   cloud.stateDir, cloud.logs       the state folder and each daemon's log file
//
// Ports: a block of this checkout's own below 32768 (layout.ts; REAL_OPENSTACK_PORT_BASE moves it): Keystone
// at the base, then Placement +1, Nova +2, Neutron +3, Octavia +4, Glance +5, Cinder +6, MariaDB +10, AMQP +11.
//
// The first call installs the packages (as root, about 300 on a bare machine), makes the pristine state once
// (bootstrap.ts: databases, schemas, Keystone's content, keys; 1.5 to 2.5 minutes, the db syncs), and starts
// everything from it (a minute on 2 cores, up to two when the machine is busy; live/bring-up.log has the
// timings); a call that finds the cloud running with the same configuration returns in a second, a changed
// configuration restarts it. Concurrent callers (test files in parallel) queue on a lock in the state folder. State: <repo>/.local/openstack, or /var/tmp/magnum-ts-openstack-<hash>
// when the daemon users cannot reach into the checkout; each daemon logs into live/<service>/<daemon>.log there.
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PUBLIC_CIDR } from './addresses.js';
import { bootstrap, configHash, pristineStamp, pristineUsable, recordedIdentity, restorePristine, writeGlue, writeServiceFiles } from './bootstrap.js';
import { computeUp, ensureFlavors, ensureImages, ensurePublicNetwork, hypervisorListed, volumeUp, type PublicNetwork } from './content.js';
import { ADMIN, DEMO_USERS, MAGNUM, createTenant, endpointsOf, type EndpointType, type Tenant, type TenantUsers } from './identity.js';
import { REGION, dirOf, layoutOf, stateDir, url, type Layout } from './layout.js';
import { allRunning, alive, assertAlive, assertPortsFree, startTier, stopAll, waitDaemons } from './lifecycle.js';
import { resetAbandonedPolicy, writeOctaviaPolicy, type OctaviaPolicyMode } from './octavia-policy.js';
import { ensureOpenStackPackages } from './packages.js';
import { holdForProcess, logFile, runTool, sleep, takeLock, tail } from './procs.js';
import { Session, call, login, type Credentials } from './rest.js';
import { mariadb, rabbitmq, type CloudDaemon, type ServiceFiles } from './services-infra.js';
import { COMPUTE_HOST, OPENSTACK } from './services-openstack.js';

export type { Credentials, EndpointType, OctaviaPolicyMode, PublicNetwork, Tenant, TenantUsers };
export { PUBLIC_CIDR };

export interface RealOpenStack {
  authUrl: string;
  region: string;
  admin: Credentials;
  magnum: Credentials;
  demo: TenantUsers;
  projectIds: { admin: string; service: string; demo: string };
  endpoints: Record<EndpointType, string>;
  publicNetwork: PublicNetwork;
  flavors: Record<string, string>;
  images: Record<string, string>;
  stateDir: string;
  logs: Record<string, string>;
  newTenant(prefix: string): Promise<Tenant>;
  setOctaviaPolicy(mode: OctaviaPolicyMode): Promise<void>;
  stop(): Promise<void>;
}

interface Saved {
  projectIds: RealOpenStack['projectIds'];
  publicNetwork: PublicNetwork;
  flavors: Record<string, string>;
  images: Record<string, string>;
}

function plan(l: Layout): { services: ServiceFiles[]; daemons: CloudDaemon[] } {
  const services = [mariadb(l), rabbitmq(l), ...OPENSTACK.map((f) => f(l))];
  return { services, daemons: services.flatMap((s) => s.daemons) };
}

async function until(what: string, deadlineMs: number, check: () => Promise<boolean>, logs: string[]): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) {
      throw new Error(`${what} did not happen within ${deadlineMs / 1000} s; ${logs.map((f) => `the end of ${f}:\n${tail(f, 15)}`).join('\n')}`);
    }
    await sleep(500);
  }
}

/** The cold start: pristine state (made first if needed), every daemon, then the cloud's content. */
async function coldStart(l: Layout, services: ServiceFiles[], daemons: CloudDaemon[], stamp: string, hash: string): Promise<Saved> {
  const t0 = Date.now();
  const timings: string[] = [];
  const note = (what: string) => timings.push(`${((Date.now() - t0) / 1000).toFixed(1)} s  ${what}`);
  await stopAll(daemons, l);
  await assertPortsFree(l);
  note('ports free');
  if (pristineUsable(l, stamp)) {
    await restorePristine(l);
    await writeServiceFiles(l, services);
    note('pristine state restored');
  } else {
    await rm(l.live, { recursive: true, force: true });
    await writeServiceFiles(l, services);
    const named = (n: string) => daemons.find((d) => d.name === n) ?? (() => { throw new Error(`no ${n} daemon`); })();
    await bootstrap(l, named('mariadb'), named('keystone'), stamp, note);
    note('one-time bring-up done, pristine state saved');
  }
  await writeOctaviaPolicy(dirOf(l, 'octavia'), 'default');
  await startTier(daemons, 0);
  note('MariaDB and RabbitMQ up');
  await waitDaemons(daemons, await startTier(daemons, 1));
  note('Keystone answering');
  const admin = new Session(url(l.ports.keystone, '/v3'), ADMIN);
  const projectIds = await recordedIdentity(l);
  // The services that use the APIs start as soon as Placement answers (Nova's compute reports to it when it
  // starts); the other APIs take longer to load, and are waited for with them.
  const apis = await startTier(daemons, 2);
  await waitDaemons(daemons, apis, ['placement-api']);
  const users = await startTier(daemons, 3);
  await waitDaemons(daemons, new Map([...apis, ...users]));
  note('APIs answering, Nova, Octavia and Cinder services started');
  const byName = (n: string) => daemons.filter((d) => d.name.startsWith(n)).map(logFile);
  const mapCompute = async () => {
    await until('Nova\'s conductor, scheduler and compute reporting up', 120_000, () => computeUp(admin, l.ports, COMPUTE_HOST), byName('nova-'));
    // Map the compute host into cell1 now (the scheduler's periodic discovery does too, but only half a minute
    // after it starts, and a test's first boot must not race it).
    const novaConf = join(dirOf(l, 'nova'), 'nova.conf');
    await runTool('nova-manage cell_v2 discover_hosts', '/usr/bin/nova-manage', ['--config-file', novaConf, 'cell_v2', 'discover_hosts', '--verbose'], { user: 'nova', env: { PATH: '/usr/bin:/bin', HOME: dirOf(l, 'nova') } });
    await until('the compute host listed as a hypervisor', 30_000, () => hypervisorListed(admin, l.ports, COMPUTE_HOST), byName('nova-'));
    note('Nova compute up and mapped into cell1');
  };
  const [, flavors, publicNetwork, images] = await Promise.all([
    mapCompute(),
    ensureFlavors(admin, l.ports),
    ensurePublicNetwork(admin, l.ports),
    ensureImages(admin, l.ports),
  ]);
  note('flavors, network public, images made');
  await until('Cinder\'s scheduler and volume service reporting up', 120_000, () => volumeUp(admin, l.ports, projectIds.admin), byName('cinder-'));
  await assertAlive(daemons);
  note('Cinder volume service up');
  await writeFile(join(l.live, 'bring-up.log'), `${timings.join('\n')}\n`);
  const saved: Saved = { projectIds, publicNetwork, flavors, images };
  await writeFile(join(l.live, 'cloud.json'), JSON.stringify(saved, null, 2));
  await writeFile(l.stamp, hash);
  return saved;
}

/** The cloud as it runs, when it runs with this configuration and its content is recorded. */
async function running(l: Layout, daemons: CloudDaemon[], hash: string): Promise<Saved | undefined> {
  if (!existsSync(l.stamp) || (await readFile(l.stamp, 'utf8')) !== hash) return undefined;
  if (!(await allRunning(daemons))) return undefined;
  try {
    const saved = JSON.parse(await readFile(join(l.live, 'cloud.json'), 'utf8')) as Saved;
    await login(url(l.ports.keystone, '/v3'), ADMIN);
    await resetAbandonedPolicy(dirOf(l, 'octavia'));
    return saved;
  } catch {
    return undefined;
  }
}

export async function startRealOpenStack(): Promise<RealOpenStack> {
  await ensureOpenStackPackages();
  const base = await stateDir();
  const l = layoutOf(base);
  await mkdir(base, { recursive: true });
  const { services, daemons } = plan(l);
  // One test file at a time uses the cloud (they change Octavia's policy): the next one waits for this process to end.
  await holdForProcess(join(base, 'in-use'));
  const release = await takeLock(l.lockFile);
  let saved: Saved;
  try {
    const glue = await writeGlue(l);
    const stamp = await pristineStamp(l);
    const hash = configHash(services, glue, stamp);
    saved = (await running(l, daemons, hash)) ?? (await coldStart(l, services, daemons, stamp, hash));
  } catch (e) {
    // Nothing half-started is left behind (the next call starts clean).
    await stopAll(daemons, l).catch(() => undefined);
    throw e;
  } finally {
    release();
  }
  const authUrl = url(l.ports.keystone, '/v3');
  const admin = new Session(authUrl, ADMIN);
  return {
    authUrl,
    region: REGION,
    admin: ADMIN,
    magnum: MAGNUM,
    demo: DEMO_USERS,
    endpoints: endpointsOf(l.ports),
    ...saved,
    stateDir: base,
    logs: Object.fromEntries(daemons.map((d) => [d.name, logFile(d)])),
    newTenant: (prefix) => createTenant(admin, l.ports, prefix),
    setOctaviaPolicy: (mode) => setOctaviaPolicy(l, mode),
    stop: () => stopRealOpenStack(),
  };
}

/** Stops every daemon of this checkout's test cloud (by PID); the state folder stays for the next start. */
export async function stopRealOpenStack(): Promise<void> {
  const l = layoutOf(await stateDir());
  const { daemons } = plan(l);
  const release = await takeLock(l.lockFile);
  try {
    await stopAll(daemons, l);
    await rm(l.stamp, { force: true });
  } finally {
    release();
  }
}

/** Names of the daemons that are running (for diagnostics). */
export async function runningDaemons(): Promise<string[]> {
  const l = layoutOf(await stateDir());
  return [...(await alive(plan(l).daemons)).keys()];
}

/**
 * Switches Octavia's policy and waits until the API answers the new way: a project member without any
 * load-balancer_* role lists load balancers with 403 under 'default', 200 under 'admin_or_owner' (probed a few
 * times, so that every API worker has re-read the file).
 */
async function setOctaviaPolicy(l: Layout, mode: OctaviaPolicyMode): Promise<void> {
  await writeOctaviaPolicy(dirOf(l, 'octavia'), mode);
  const { token } = await login(url(l.ports.keystone, '/v3'), DEMO_USERS.memberOnly);
  const want = mode === 'default' ? 403 : 200;
  const deadline = Date.now() + 30_000;
  let streak = 0;
  while (streak < 4) {
    const res = await call('GET', `${url(l.ports.octavia)}/v2/lbaas/loadbalancers`, { token });
    streak = res.status === want ? streak + 1 : 0;
    if (Date.now() > deadline) throw new Error(`Octavia did not apply the ${mode} policy within 30 s (last answer ${res.status})`);
    if (streak < 4) await sleep(100);
  }
}

export { COMPUTE_HOST };
