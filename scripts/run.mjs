// Entry of the npm scripts: installs what is missing (npm dependencies; a private PostgreSQL
// and Redis when DATABASE_URL / REDIS_URL are not set), then runs the service, the tests,
// the migrations, the benchmark, the OpenAPI generator or the bootstrap renderer.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BuildError, ensureBuild } from './build.mjs';
import { ensureNpmDeps, ensurePostgres, ensureRedis, SetupError } from './local-services.mjs';
import { ensurePortal } from './portal-build.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const localDir = join(root, '.local');
const mode = process.argv[2];
const extra = process.argv.slice(3);

function findTests(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...findTests(p));
    else if (name.endsWith('.test.ts')) out.push(relative(root, p));
  }
  return out.sort();
}

/** Every test file, the slowest first (test/slow-first.txt, measured), then the others by name. */
function orderedTests(dir) {
  const all = findTests(dir);
  let slow = [];
  try {
    slow = readFileSync(join(dir, 'slow-first.txt'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  } catch {
    // no list: name order
  }
  const first = slow.filter((f) => all.includes(f));
  return [...first, ...all.filter((f) => !first.includes(f))];
}

/** DATABASE_URL and REDIS_URL from the environment, or the private servers'. */
async function infra(dbName) {
  let adminUrl = process.env.DATABASE_URL;
  let databaseUrl = adminUrl;
  if (!adminUrl) {
    adminUrl = await ensurePostgres(localDir, Number(process.env.LOCAL_PG_PORT ?? 55432));
    databaseUrl = adminUrl.replace(/\/postgres$/, `/${dbName}`);
  }
  const redisUrl = process.env.REDIS_URL ?? (await ensureRedis(localDir, Number(process.env.LOCAL_REDIS_PORT ?? 56379)));
  return { adminUrl, databaseUrl, redisUrl };
}

/** SECRET_KEYS from the environment, or a key made once for this clone (.local/secret-keys, mode 0600). */
function secretKeys() {
  if (process.env.SECRET_KEYS) return process.env.SECRET_KEYS;
  const file = join(localDir, 'secret-keys');
  if (!existsSync(file)) {
    mkdirSync(localDir, { recursive: true });
    writeFileSync(file, randomBytes(32).toString('base64') + '\n', { mode: 0o600 });
  }
  return readFileSync(file, 'utf8').trim();
}

function exec(cmd, args, env) {
  const child = spawn(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

const tsx = join(root, 'node_modules', '.bin', 'tsx');

/** The ports `all` listens on, tried with the built port check; one line and its exit code when one is not free. */
async function portsFreeOrExit() {
  const { assertPortsFree } = await import(join(root, 'dist', 'src', 'port-check.js'));
  const { exitOnStartupError } = await import(join(root, 'dist', 'src', 'process', 'startup-error.js'));
  await assertPortsFree('all').catch((e) => exitOnStartupError('all', e));
}
// The service runs compiled, as in production: dist/ is rebuilt first when the sources changed.
const main = join(root, 'dist', 'src', 'main.js');

try {
  ensureNpmDeps(root);
  // The portal is served by the API and driven by the browser tests: built when missing or stale.
  if (['start', 'test', 'bench', 'screenshots'].includes(mode)) ensurePortal(root);
  switch (mode) {
    case 'start': {
      // Every port the service listens on is checked before PostgreSQL and Redis: a taken one is one line.
      ensureBuild(root);
      await portsFreeOrExit();
      const { adminUrl, databaseUrl, redisUrl } = await infra('magnum');
      exec(process.execPath, [main, 'all', ...extra], { DATABASE_URL: databaseUrl, DATABASE_ADMIN_URL: adminUrl, REDIS_URL: redisUrl, SECRET_KEYS: secretKeys() });
      break;
    }
    case 'migrate': {
      const { adminUrl, databaseUrl, redisUrl } = await infra('magnum');
      ensureBuild(root);
      exec(process.execPath, [main, 'migrate'], { DATABASE_URL: databaseUrl, DATABASE_ADMIN_URL: adminUrl, REDIS_URL: redisUrl, SECRET_KEYS: secretKeys() });
      break;
    }
    case 'test': {
      const { adminUrl, redisUrl } = await infra('postgres');
      // `npm test -- [node --test options] [files]`: options (--test-reporter=tap, --test-name-pattern=...) pass
      // through; without files, every test file.
      const options = extra.filter((a) => a.startsWith('--'));
      const named = extra.filter((a) => !a.startsWith('--'));
      const files = named.length > 0 ? named : orderedTests(join(root, 'test'));
      // Unless a reporter is asked for: node's own (spec on a terminal, TAP otherwise) and, at the end, the
      // failing tests again (scripts/failures-reporter.mjs), where a log's tail shows them.
      const reporters = options.some((o) => o.startsWith('--test-reporter'))
        ? []
        : [`--test-reporter=${process.stdout.isTTY ? 'spec' : 'tap'}`, '--test-reporter-destination=stdout', `--test-reporter=${join(root, 'scripts', 'failures-reporter.mjs')}`, '--test-reporter-destination=stdout'];
      exec(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=600000', ...reporters, ...options, ...files], {
        TEST_DATABASE_ADMIN_URL: adminUrl,
        REDIS_URL: redisUrl,
      });
      break;
    }
    case 'bench': {
      const { adminUrl, redisUrl } = await infra('postgres');
      // `npm run bench`: the template reads (bench/run.ts), cluster creation (bench/cluster.ts), then the
      // portal (bench/portal.ts); `npm run bench -- templates|cluster|portal|soak|lists [options]`: one of
      // them (the soak, bench/soak.ts, and the list scaling, bench/lists.ts, only by name: each starts its
      // own PostgreSQL and Redis and lasts minutes).
      const env = { ...process.env, TEST_DATABASE_ADMIN_URL: adminUrl, REDIS_URL: redisUrl };
      const scripts = { templates: 'bench/run.ts', cluster: 'bench/cluster.ts', portal: 'bench/portal.ts', soak: 'bench/soak.ts', lists: 'bench/lists.ts' };
      const which = extra[0] in scripts ? [extra[0]] : ['templates', 'cluster', 'portal'];
      const args = which.length === 1 ? extra.slice(1) : extra;
      for (const w of which) {
        const script = scripts[w];
        const code = await new Promise((resolve) => spawn(tsx, [script, ...args], { cwd: root, stdio: 'inherit', env }).on('exit', (c) => resolve(c ?? 1)));
        if (code !== 0) process.exit(code);
      }
      process.exit(0);
      break;
    }
    case 'openapi': {
      // The OpenStack clients' types (openapi/openstack/*.ts) first, then the Magnum contract.
      const code = await new Promise((resolve) => spawn(tsx, ['scripts/openapi-openstack.ts'], { cwd: root, stdio: 'inherit' }).on('exit', resolve));
      if (code !== 0) process.exit(typeof code === 'number' ? code : 1);
      exec(tsx, ['scripts/openapi.ts', ...extra], {});
      break;
    }
    case 'screenshots': {
      // Every portal page, light and dark, into docs/portal/ (a browser against the whole stack).
      const { adminUrl, redisUrl } = await infra('postgres');
      exec(tsx, ['scripts/portal-screenshots.ts'], { TEST_DATABASE_ADMIN_URL: adminUrl, REDIS_URL: redisUrl });
      break;
    }
    case 'render':
      exec(tsx, ['scripts/render.ts', ...extra], {});
      break;
    case 'labels':
      exec(tsx, ['scripts/labels.ts'], {});
      break;
    default:
      console.error('usage: node scripts/run.mjs start|test|migrate|bench|openapi|render|labels|screenshots');
      process.exit(2);
  }
} catch (e) {
  if (e instanceof SetupError || e instanceof BuildError) {
    console.error(`[setup] ${e.message}`);
    process.exit(1);
  }
  throw e;
}
