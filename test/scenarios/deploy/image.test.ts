// The image, checked without a Docker engine. The Dockerfile passes the Dockerfile language
// server's validator, copies only what exists and what .dockerignore keeps, and builds with the
// lock file. Its runtime stage, laid out as it says (test/scenarios/deploy/image-layout.ts) and run as its
// user: every compiled module loads with the production dependencies alone; bad configuration
// and an old schema stop a start with one line; and migrate, the simulator, an API and a worker,
// four processes of the compiled code, create a cluster, then stop cleanly on SIGTERM.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validate } from 'dockerfile-utils';
import pg from 'pg';
import { Redis } from 'ioredis';
import { BUILTIN_USERS, SERVICE_USER } from '../../../cloudsim/embedded.js';
import { MODES } from '../../../src/process/modes.js';
import { TEST_SECRET_KEY } from '../../support/app.js';
import { closedPort } from '../../support/net.js';
import { inBuildContext, layOutRuntime, productionPackages } from './image-layout.js';
import { dockerfileStages, dockerfileText, imageEnv, ROOT, stage } from './support.js';

const stages = dockerfileStages();
const runtime = stage(stages, 'runtime');
const entrypoint = runtime.steps.find((s) => s.keyword === 'ENTRYPOINT')?.json ?? [];
const user = runtime.steps.find((s) => s.keyword === 'USER')?.args[0] ?? '';

test('the Dockerfile: valid, staged, copying only what exists and what the build context keeps', () => {
  assert.deepEqual(validate(dockerfileText()).map((p) => `line ${p.range.start.line + 1}: ${p.message}`), []);
  assert.deepEqual(stages.map((s) => s.name), ['deps', 'build', 'prod-deps', 'runtime']);
  const runs = (name: string) => stage(stages, name).steps.filter((s) => s.keyword === 'RUN').map((s) => s.args.join(' '));
  assert.ok(runs('deps').some((r) => /^npm ci\b/.test(r)), 'the build installs from the lock file');
  assert.ok(runs('prod-deps').some((r) => /^npm ci --omit=dev\b/.test(r)), 'the runtime gets production dependencies only');
  assert.ok(runs('build').includes('npm run build'));
  assert.ok(runs('build').includes('node_modules/.bin/tsx portal/build.ts'), 'the build stage builds the portal');
  const fromBuild = runtime.steps.filter((s) => s.keyword === 'COPY' && s.flags.from === 'build').map((s) => s.args.join(' '));
  assert.deepEqual(fromBuild, ['/app/dist dist', '/app/portal/dist portal/dist'], 'the runtime takes the compiled server and the built portal');
  for (const f of ['portal/build.ts', 'portal/labels-registry.ts', 'portal/index.html', 'portal/src/main.tsx']) assert.ok(inBuildContext(f), `.dockerignore keeps ${f}`);
  assert.equal((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.build, 'node scripts/build.mjs');
  assert.deepEqual(runs('runtime'), [], 'the runtime stage installs nothing');
  const tsconfig = JSON.parse(readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8')) as { include: string[] };
  const built = stage(stages, 'build').steps.filter((s) => s.keyword === 'COPY').flatMap((s) => s.args.slice(0, -1));
  for (const dir of tsconfig.include) assert.ok(built.includes(dir), `the build stage copies ${dir} (tsconfig.build.json compiles it)`);
  for (const s of stages) {
    for (const c of s.steps.filter((x) => x.keyword === 'COPY' || x.keyword === 'ADD')) {
      assert.equal(c.keyword, 'COPY', `line ${c.line}: COPY, not ADD`);
      if (c.flags.from !== undefined) {
        assert.ok(stages.indexOf(stage(stages, c.flags.from)) < stages.indexOf(s), `line ${c.line}: from an earlier stage`);
        assert.notEqual(c.flags.from, 'deps', `line ${c.line}: the runtime never takes the dev dependencies`);
        continue;
      }
      for (const src of c.args.slice(0, -1)) {
        assert.ok(existsSync(join(ROOT, src)), `line ${c.line}: ${src} exists`);
        assert.ok(inBuildContext(src), `line ${c.line}: .dockerignore keeps ${src} in the build context`);
      }
    }
  }
  for (const secret of ['.local', '.local/secret-keys', 'clouds.yaml', 'node_modules', 'dist', '.git', 'test', 'portal/dist']) {
    assert.equal(inBuildContext(secret), false, `.dockerignore keeps ${secret} out of the build context`);
  }
  assert.match(user, /^[1-9]\d*:[1-9]\d*$/, 'a numeric non-root user (runAsNonRoot can check it)');
  assert.deepEqual(entrypoint, ['node', 'dist/src/main.js']);
  const cmd = runtime.steps.find((s) => s.keyword === 'CMD')?.json ?? [];
  assert.ok(cmd.length === 1 && cmd[0]! in MODES, `CMD ${JSON.stringify(cmd)} is a mode`);
});

interface Proc {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  exit: Promise<number | null>;
}

const until = async <T>(what: string, fn: () => Promise<T | undefined>, ms = 60_000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
};

test('the runtime stage runs every role from dist/ with production dependencies only, as the image user', async (t) => {
  const app = await layOutRuntime(stages);
  const [uid, gid] = user.split(':').map(Number) as [number, number];
  const asUser = process.getuid?.() === 0 ? { uid, gid } : {};
  const procs: Proc[] = [];
  /** The image's entry point with `args` (or `command` instead of the entry point), in the app folder, as the image's user. */
  const start = (args: string[], env: Record<string, string>, command = entrypoint): Proc => {
    const child = spawn(command[0]!, [...command.slice(1), ...args], { cwd: app, env: { PATH: process.env.PATH!, ...env }, ...asUser });
    let out = '';
    let err = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    const p: Proc = { child, out: () => out, err: () => err, exit: new Promise((r) => child.on('exit', (code) => r(code))) };
    procs.push(p);
    return p;
  };
  const ran = async (args: string[], env: Record<string, string> = {}, command = entrypoint) => {
    const p = start(args, env, command);
    return { code: await p.exit, out: p.out(), err: p.err() };
  };
  const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_ADMIN_URL });
  await admin.connect();
  const dbName = `t_image_${process.pid}`;
  await admin.query(`CREATE DATABASE ${dbName}`);
  const dbUrl = new URL(process.env.TEST_DATABASE_ADMIN_URL!);
  dbUrl.pathname = `/${dbName}`;
  const prefix = `image-${process.pid}`;
  try {
    await t.test('only production packages are there, and every compiled module loads with them', async () => {
      const pkgs = productionPackages();
      assert.ok(pkgs.includes('node_modules/fastify') && !pkgs.includes('node_modules/typescript') && !pkgs.includes('node_modules/tsx'));
      const loaded = await ran(['--input-type=module', '-e', IMPORT_ALL], {}, ['node']);
      assert.equal(loaded.code, 0, loaded.err);
      assert.match(loaded.out, /^loaded \d{3,} modules\n$/);
    });

    await t.test('--help lists the modes; bad configuration ends a start with one line and exit code 2', async () => {
      const help = await ran(['--help']);
      assert.equal(help.code, 0);
      for (const m of Object.keys(MODES)) assert.match(help.out, new RegExp(`^  ${m} `, 'm'));
      assert.deepEqual(await ran(['api']), { code: 2, out: '', err: 'magnum-ts api: bad configuration: DATABASE_URL must be set\n' });
      const sim = await ran(['sim'], { SIM_NOVA_PORT: 'nova' });
      assert.deepEqual(sim, { code: 2, out: '', err: 'magnum-ts sim: bad configuration: SIM_NOVA_PORT must be an integer between 0 and 65535, got "nova"\n' });
      assert.equal((await ran(['serve'])).code, 2);
    });

    const ports = { api: await closedPort(), worker: await closedPort(), keystone: await closedPort() };
    const simPorts = Object.fromEntries(await Promise.all(['GLANCE', 'NOVA', 'NEUTRON', 'OCTAVIA', 'CINDER', 'DESIGNATE', 'MANILA', 'BARBICAN', 'ADMIN'].map(async (s) => [`SIM_${s}_PORT`, String(await closedPort())])));
    // The simulator alone on 127.0.0.2: a cluster's API listener left on 127.0.0.1 would not be
    // reached, as in docker-compose.yml where the simulator is another container.
    const simHost = '127.0.0.2';
    const env = {
      ...imageEnv(stages),
      API_HOST: '127.0.0.1',
      API_PORT: String(ports.api),
      WORKER_HEALTH_HOST: '127.0.0.1',
      WORKER_HEALTH_PORT: String(ports.worker),
      DATABASE_URL: dbUrl.toString(),
      REDIS_URL: process.env.REDIS_URL!,
      QUEUE_PREFIX: prefix,
      KEYSTONE_URL: `http://${simHost}:${ports.keystone}/v3`,
      SERVICE_PASSWORD: SERVICE_USER.password,
      SECRET_KEYS: TEST_SECRET_KEY,
      CLOUD_RESOURCE_CHECKS: 'true',
      LOG_LEVEL: 'warn',
    };

    await t.test('api refuses an old schema; migrate brings it up to date', async () => {
      const early = await ran(['api'], env);
      assert.equal(early.code, 1);
      assert.match(early.err, /^magnum-ts api: the database schema is behind this build \(\d+ pending migrations: Initial\d+, .*\): run the migrate mode first\n$/);
      const m = await ran(['migrate'], { DATABASE_URL: env.DATABASE_URL });
      assert.equal(m.code, 0, m.err);
      assert.match(m.out, /"msg":"migrations applied"/);
    });

    await t.test('sim, api and worker processes create a cluster, list the worker, and stop on SIGTERM', async () => {
      const sim = start(['sim'], { ...simPorts, SIM_HOST: simHost, SIM_KEYSTONE_PORT: String(ports.keystone), PUBLIC_API_URL: `http://127.0.0.1:${ports.api}` });
      await until('the simulator', async () => ((await fetch(`${env.KEYSTONE_URL}`)).ok ? true : undefined));
      const api = start(['api'], env);
      const worker = start(['worker'], env);
      const base = `http://127.0.0.1:${ports.api}`;
      await until('the API ready', async () => ((await fetch(`${base}/readyz`)).status === 200 ? true : undefined));
      await until('the worker ready', async () => ((await fetch(`http://127.0.0.1:${ports.worker}/readyz`)).status === 200 ? true : undefined));
      // The compose health checks' probe: 0 when ready, 1 and one line when nothing answers.
      assert.deepEqual(await ran(['dist/src/probe.js', `${base}/readyz`], {}, ['node']), { code: 0, out: '', err: '' });
      // The portal, served by the API from the image's portal/dist: the page and the hashed script it names.
      const page = await fetch(`${base}/ui/`);
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
      const script = /src="(\/ui\/assets\/app-[\w-]+\.js)"/.exec(await page.text())?.[1];
      assert.ok(script, 'index.html names the bundle');
      const bundle = await fetch(`${base}${script}`);
      assert.equal(bundle.status, 200);
      assert.match(bundle.headers.get('cache-control') ?? '', /immutable/);
      const closed = `http://127.0.0.1:${await closedPort()}/readyz`;
      assert.deepEqual(await ran(['dist/src/probe.js', closed], {}, ['node']), { code: 1, out: '', err: `${closed}: ECONNREFUSED\n` });

      const token = async (user: keyof typeof BUILTIN_USERS) => {
        const u = BUILTIN_USERS[user];
        const res = await fetch(`${env.KEYSTONE_URL}/auth/tokens`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            auth: {
              identity: { methods: ['password'], password: { user: { name: user, domain: { name: 'Default' }, password: u.password } } },
              scope: { project: { name: u.project, domain: { name: 'Default' } } },
            },
          }),
        });
        assert.equal(res.status, 201);
        return res.headers.get('x-subject-token')!;
      };
      const call = async (tok: string, method: string, path: string, body?: unknown) => {
        const res = await fetch(`${base}${path}`, {
          method,
          headers: { 'x-auth-token': tok, 'openstack-api-version': 'container-infra latest', ...(body ? { 'content-type': 'application/json' } : {}) },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      };
      const demo = await token('demo');
      const tpl = await call(demo, 'POST', '/v1/clustertemplates', { name: 'k8s', coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', flavor_id: 'm1.small', master_flavor_id: 'm1.medium' });
      assert.equal(tpl.status, 201, JSON.stringify(tpl.body));
      const created = await call(demo, 'POST', '/v1/clusters', { name: 'c1', cluster_template_id: 'k8s', master_count: 1, node_count: 1 });
      assert.equal(created.status, 202, JSON.stringify(created.body));
      let last = '';
      const status = await until(
        'the cluster to settle',
        async () => {
          const s = (await call(demo, 'GET', '/v1/clusters/c1')).body;
          last = `${String(s.status)} ${String(s.status_reason)}`;
          return String(s.status).endsWith('_IN_PROGRESS') ? undefined : last;
        },
        120_000,
      ).catch((e: Error) => assert.fail(`${e.message} (last: ${last})`));
      assert.equal(status, 'CREATE_COMPLETE null', `worker: ${worker.err()}`);
      const services = (await call(await token('admin'), 'GET', '/v1/mservices')).body.mservices as { state: string }[];
      assert.deepEqual(services.map((s) => s.state), ['up']);

      for (const [what, p] of [['worker', worker], ['api', api], ['simulator', sim]] as const) {
        p.child.kill('SIGTERM');
        assert.equal(await p.exit, 0, `${what}: ${p.err()}`);
        assert.match(p.out(), new RegExp(`"msg":"${what} stopped"`));
      }
    });
  } finally {
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await Promise.all(procs.map((p) => p.exit));
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
    const redis = new Redis(process.env.REDIS_URL!);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  }
});

/** Imports every compiled module but the entry points (they start a process), and prints how many. */
const IMPORT_ALL = `
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
const walk = (d) => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : e.name.endsWith('.js') ? [join(d, e.name)] : []));
const entries = new Set(['dist/src/main.js', 'dist/src/probe.js']);
const files = walk('dist').filter((f) => !entries.has(f));
for (const f of files) await import(pathToFileURL(resolve(f)).href);
console.log('loaded ' + files.length + ' modules');
process.exit(0);
`;
