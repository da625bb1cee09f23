// The one seam between the product and its simulator (src/simulator-seam.ts): through it alone, the modes
// that embed the simulated cloud read where it listens from the environment, start it (Keystone, the
// services, Magnum in the catalog), write clouds.yaml for the built-in users, and close it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ConfigError } from '../src/config.js';
import { SERVICE_USER, SIM_PORT_VARIABLES, simListenFromEnv, startEmbeddedSim, writeCloudsYaml } from '../src/simulator-seam.js';

test('the ports from the environment; a bad one is bad configuration naming its variable', () => {
  const listen = simListenFromEnv({ SIM_HOST: '127.0.0.2', PUBLIC_HOST: 'cloud.test', API_PORT: '9999', SIM_NOVA_PORT: '18774' });
  assert.deepEqual([listen.host, listen.publicHost, listen.apiUrl, listen.ports.nova, listen.keystonePort], ['127.0.0.2', 'cloud.test', 'http://cloud.test:9999', 18774, 5000]);
  assert.throws(() => simListenFromEnv({ SIM_GLANCE_PORT: 'x' }), (e: unknown) => e instanceof ConfigError && /^SIM_GLANCE_PORT must be an integer/.test(e.message));
  assert.equal(SIM_PORT_VARIABLES.keystone, 'SIM_KEYSTONE_PORT');
});

test('started on free ports: a user logs in, the catalog names the services and Magnum; clouds.yaml for each user', { timeout: 60_000 }, async () => {
  const env = Object.fromEntries(Object.values(SIM_PORT_VARIABLES).map((v) => [v, '0']));
  const sim = await startEmbeddedSim({ ...simListenFromEnv({ ...env, API_PORT: '9511' }), cloud: {} });
  const dir = await mkdtemp(join(tmpdir(), 'seam-'));
  try {
    const res = await fetch(`${sim.authUrl}/auth/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ auth: { identity: { methods: ['password'], password: { user: { name: SERVICE_USER.username, domain: { id: 'default' }, password: SERVICE_USER.password } } }, scope: { project: { name: SERVICE_USER.project, domain: { id: 'default' } } } } }),
    });
    assert.equal(res.status, 201);
    const types = ((await res.json()) as { token: { catalog: { type: string; endpoints: { url: string }[] }[] } }).token.catalog;
    for (const t of ['identity', 'compute', 'network', 'image', 'load-balancer', 'container-infra']) assert.ok(types.some((e) => e.type === t), t);
    assert.equal(types.find((e) => e.type === 'container-infra')!.endpoints[0]!.url, 'http://127.0.0.1:9511/v1');

    const file = join(dir, 'clouds.yaml');
    writeCloudsYaml(file, sim.authUrl);
    const clouds = (parse(await readFile(file, 'utf8')) as { clouds: Record<string, { auth: { auth_url: string; username: string } }> }).clouds;
    assert.deepEqual(Object.keys(clouds).sort(), ['admin', 'demo', 'demo-reader', 'other']);
    assert.equal(clouds.demo!.auth.auth_url, sim.authUrl);
    assert.equal((await stat(file)).mode & 0o777, 0o600, 'passwords: readable by its owner only');
  } finally {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  }
});
