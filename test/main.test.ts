// The process entry (src/main.ts), run as the image runs it: --help, an unknown mode, bad configuration
// (exit 2, one line), the migrate mode on an empty database (applies every migration once; a second run
// finds nothing), and an API refusing to start on a schema behind the build (exit 1, one line).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { migrations } from '../migrations/index.js';
import { TEST_SECRET_KEY } from './support/app.js';
import { closedPort } from './support/net.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const adminUrl = () => process.env.TEST_DATABASE_ADMIN_URL ?? process.env.DATABASE_URL!;
const name = `t_main_${process.pid}_${randomBytes(4).toString('hex')}`;
let url: string;
const admin = async (sql: string) => {
  const c = new pg.Client({ connectionString: adminUrl() });
  await c.connect();
  await c.query(sql);
  await c.end();
};

before(async () => {
  await admin(`CREATE DATABASE ${name}`);
  const u = new URL(adminUrl());
  u.pathname = `/${name}`;
  url = u.toString();
});
after(() => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));

/** `tsx src/main.ts <args>` with only `env` of the service's variables; its exit code and output. */
function main(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(DATABASE_|REDIS_URL|KEYSTONE_URL|API_|SIM_|TEST_|SECRET_KEYS|SERVICE_)/.test(k)));
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], { cwd: root, env: { ...clean, LOG_LEVEL: 'info', ...env }, timeout: 120_000 }, (e, stdout, stderr) => {
      resolve({ code: e ? (typeof e.code === 'number' ? e.code : 1) : 0, stdout, stderr });
    });
  });
}

test('--help lists the modes; an unknown mode exits 2 naming them', { timeout: 120_000 }, async () => {
  const help = await main(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^usage: node dist\/src\/main\.js <mode>/);
  const bad = await main(['frobnicate']);
  assert.deepEqual([bad.code, bad.stderr], [2, 'magnum-ts: unknown mode "frobnicate": use one of api, worker, migrate, sim, all (--help says more)\n']);
});

test('bad configuration: one line naming the variable, exit 2', { timeout: 120_000 }, async () => {
  const migrate = await main(['migrate']);
  assert.deepEqual([migrate.code, migrate.stderr], [2, 'magnum-ts migrate: bad configuration: DATABASE_URL must be set\n']);
  const api = await main(['api'], { API_PORT: String(await closedPort()), DATABASE_URL: 'not a url' });
  assert.equal(api.code, 2);
  assert.equal(api.stderr, 'magnum-ts api: bad configuration: DATABASE_URL must be a URL, got "not a url"\n');
});

test('migrate on an empty database applies every migration once; again, none; api then passes the schema check', { timeout: 120_000 }, async () => {
  const behind = await main(['api'], { API_PORT: String(await closedPort()), DATABASE_URL: url, REDIS_URL: process.env.REDIS_URL!, KEYSTONE_URL: 'http://127.0.0.1:1/v3', SERVICE_PASSWORD: 'x', SECRET_KEYS: TEST_SECRET_KEY });
  assert.equal(behind.code, 1, behind.stderr);
  assert.match(behind.stderr, /^magnum-ts api: the database schema is behind this build \(\d+ pending migrations: .*\): run the migrate mode first\n$/);

  const first = await main(['migrate'], { DATABASE_URL: url });
  assert.equal(first.code, 0, first.stderr);
  const applied = JSON.parse(first.stdout.trim().split('\n').at(-1)!) as { msg: string; migrations: string[] };
  assert.equal(applied.msg, 'migrations applied');
  assert.equal(applied.migrations.length, migrations.length);
  const again = await main(['migrate'], { DATABASE_URL: url });
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(JSON.parse(again.stdout.trim().split('\n').at(-1)!).migrations, []);
});

test('an unreachable PostgreSQL: one line naming it and DATABASE_URL, exit 1', { timeout: 120_000 }, async () => {
  const port = await closedPort();
  const r = await main(['migrate'], { DATABASE_URL: `postgres://u:p@127.0.0.1:${port}/x` });
  assert.equal(r.code, 1);
  assert.match(r.stderr, new RegExp(`^magnum-ts migrate: PostgreSQL at 127\\.0\\.0\\.1:${port} \\(DATABASE_URL\\): .*ECONNREFUSED.*\\n$`));
  assert.doesNotMatch(r.stderr, /p@/, 'the password is not shown');
});
