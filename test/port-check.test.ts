// The first five minutes: the entry `npm start` runs (mode all), and the sim mode, on a machine where one of
// their ports is taken say so in one line, naming the port and the variable that moves it, exit 1 with no
// stack trace, and start nothing first (no database needed, no listener opened, no clouds.yaml written).
// The check itself: the ports of each mode, bad values, a port asked for twice, several taken at once.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SIM_PORT_VARIABLES } from '../cloudsim/embedded.js';
import { ConfigError } from '../src/config.js';
import { checkPorts, portsOf, PortInUse } from '../src/port-check.js';
import { closedPort } from './support/net.js';

const root = fileURLToPath(new URL('..', import.meta.url));
let held: Server;
let heldPort: number;
let dir: string;
/** API_PORT and every SIM_*_PORT on free loopback ports, SIM_KEYSTONE_PORT on the held one. */
const env: Record<string, string> = {};

before(async () => {
  held = createServer();
  await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
  heldPort = (held.address() as { port: number }).port;
  dir = await mkdtemp(join(tmpdir(), 'port-check-'));
  env.API_PORT = String(await closedPort());
  for (const v of Object.values(SIM_PORT_VARIABLES)) env[v] = String(await closedPort());
  env.SIM_KEYSTONE_PORT = String(heldPort);
  env.CLOUDS_YAML = join(dir, 'clouds.yaml');
});
after(async () => {
  await new Promise((resolve) => held.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

/** Runs a command with the ports above (and no database, Redis or Keystone settings); its exit and output. */
function spawnWith(cmd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(DATABASE_|REDIS_URL|KEYSTONE_URL|API_|SIM_|TEST_)/.test(k)));
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd: root, env: { ...clean, ...env }, timeout: 120_000 }, (e, stdout, stderr) => {
      resolve({ code: e ? (typeof e.code === 'number' ? e.code : 1) : 0, stdout, stderr });
    });
  });
}

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = createConnection({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', () => resolve(true));
  });

for (const mode of ['all', 'sim'] as const) {
  test(`the entry (src/main.ts ${mode}) with SIM_KEYSTONE_PORT taken: one line, exit 1, nothing started`, { timeout: 120_000 }, async () => {
    const r = await spawnWith(process.execPath, ['--import', 'tsx', 'src/main.ts', mode]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.equal(r.stderr, `magnum-ts ${mode}: port ${heldPort} (SIM_KEYSTONE_PORT) is in use: stop what listens there or set SIM_KEYSTONE_PORT\n`);
    assert.doesNotMatch(r.stdout, /migrations applied|started|listening/);
    assert.equal(existsSync(env.CLOUDS_YAML!), false, 'no clouds.yaml written');
    for (const v of ['API_PORT', 'SIM_GLANCE_PORT', 'SIM_ADMIN_PORT']) assert.ok(await refused(Number(env[v])), `${v} not listened on`);
  });
}

describe('checkPorts and portsOf', () => {
  const names = (mode: Parameters<typeof portsOf>[0], e: NodeJS.ProcessEnv) => portsOf(mode, e).map((c) => `${c.variable}=${c.port}`);

  test('the ports of each mode, with their variables; port 0 claims nothing; bad values are bad configuration', () => {
    assert.deepEqual(names('all', {}), [
      'API_PORT=9511', 'SIM_KEYSTONE_PORT=5000', 'SIM_GLANCE_PORT=9292', 'SIM_NOVA_PORT=8774', 'SIM_NEUTRON_PORT=9696', 'SIM_OCTAVIA_PORT=9876',
      'SIM_CINDER_PORT=8776', 'SIM_DESIGNATE_PORT=9001', 'SIM_MANILA_PORT=8786', 'SIM_BARBICAN_PORT=9311', 'SIM_ADMIN_PORT=9990',
    ]);
    assert.deepEqual(names('all', { KEYSTONE_URL: 'http://k/v3', WORKER_HEALTH_PORT: '9600' }), ['API_PORT=9511', 'WORKER_HEALTH_PORT=9600']);
    assert.deepEqual(names('all', { KEYSTONE_URL: 'http://k/v3', WORKER_HEALTH_PORT: '9600', RUN_WORKER: 'false' }), ['API_PORT=9511']);
    assert.deepEqual(names('api', { API_PORT: '8000' }), ['API_PORT=8000']);
    assert.deepEqual(names('worker', {}), [], 'a worker without probes listens on nothing');
    assert.equal(names('sim', {}).length, 10);
    assert.deepEqual(portsOf('api', { API_PORT: '8000', API_HOST: '0.0.0.0' })[0]!.host, '0.0.0.0');
    assert.throws(() => portsOf('all', { SIM_NOVA_PORT: '87740' }), new ConfigError('SIM_NOVA_PORT must be an integer between 0 and 65535, got "87740"'));
    assert.throws(() => portsOf('api', { API_PORT: 'abc' }), new ConfigError('API_PORT must be an integer between 0 and 65535, got "abc"'));
  });

  test('a port asked for twice; several taken at once in one line; free ports pass', async () => {
    const at = (variable: string, port: number) => ({ variable, host: '127.0.0.1', port });
    await assert.rejects(
      checkPorts([at('SIM_NOVA_PORT', 7000), at('SIM_GLANCE_PORT', 7000)]),
      new ConfigError('port 7000 is asked for twice (SIM_NOVA_PORT and SIM_GLANCE_PORT): set one of them to another port'),
    );
    const other = createServer();
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const otherPort = (other.address() as { port: number }).port;
    try {
      await assert.rejects(
        checkPorts([at('API_PORT', heldPort), at('SIM_ADMIN_PORT', otherPort)]),
        new PortInUse(`ports ${heldPort} (API_PORT), ${otherPort} (SIM_ADMIN_PORT) are in use (another npm start?): stop what listens there or set API_PORT, SIM_ADMIN_PORT`),
      );
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
    await checkPorts([at('API_PORT', await closedPort())]);
  });
});
