// `npm test` in a fresh clone inside a folder other users cannot enter (mktemp -d, anywhere under /root):
// the real-Keystone harness runs keystone-manage and uwsgi as the `keystone` user, so its state must not be
// inside the checkout then. This copies the checkout as git sees it (tracked files and new ones not ignored)
// into a 0700 folder, links node_modules, and brings up the harness from there (one cold bring-up: db_sync,
// keys, bootstrap): it must work, with its files under /var/tmp, none inside the private clone.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ensureKeystonePackages } from '../../support/real-keystone.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../../', import.meta.url));
let home: string | undefined;
let state: string | undefined;

after(async () => {
  if (home) await rm(home, { recursive: true, force: true });
  // The clone is gone: so is its Keystone state.
  if (state) await rm(state, { recursive: true, force: true });
});

/** The checkout as a clone of it would hold it now, copied under `to`; node_modules linked, not copied. */
async function cloneInto(to: string): Promise<void> {
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, maxBuffer: 64 << 20 });
  const files = stdout.split('\0').filter((f) => f && existsSync(join(root, f)));
  assert.ok(files.includes('test/support/real-keystone.ts'), 'git lists the checkout');
  for (const f of files) {
    await mkdir(dirname(join(to, f)), { recursive: true });
    await copyFile(join(root, f), join(to, f));
  }
  await symlink(join(root, 'node_modules'), join(to, 'node_modules'));
}

test('the real-Keystone harness works from a clone in a folder only root may enter, its state under /var/tmp', { timeout: 600_000 }, async () => {
  await ensureKeystonePackages();
  home = await mkdtemp(join(tmpdir(), 'private-checkout-'));
  assert.equal((await stat(home)).mode & 0o777, 0o700);
  const clone = join(home, 'magnum-ts');
  await cloneInto(clone);
  const probe = join(home, 'probe.mts');
  await writeFile(
    probe,
    [
      `import { issueToken, startRealKeystone } from ${JSON.stringify(join(clone, 'test/support/real-keystone.ts'))};`,
      `const ks = await startRealKeystone({ provider: 'fernet' });`,
      `const demo = await issueToken(ks, 'demo');`,
      `console.log(JSON.stringify({ dir: ks.dir, scoped: demo.body.token.project.id === ks.projectIds.demo }));`,
      `await ks.stop();`,
    ].join('\n'),
  );
  const r = await run(process.execPath, ['--import', 'tsx', probe], { cwd: clone, timeout: 540_000, maxBuffer: 16 << 20 }).catch((e: { stdout?: string; stderr?: string; message: string }) => {
    throw new Error(`the harness failed from the private clone: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
  });
  const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as { dir: string; scoped: boolean };
  assert.equal(out.scoped, true, 'demo got a token scoped to project demo');
  state = dirname(out.dir);
  assert.match(state, /^\/var\/tmp\/magnum-ts-keystone-[0-9a-f]{12}$/);
  assert.ok(existsSync(join(state, 'cache-fernet', 'keystone.db')), 'the bring-up was cached beside it');
  assert.equal(existsSync(out.dir), false, 'stop() removed the instance');
  const local = join(clone, '.local', 'keystone');
  assert.deepEqual(existsSync(local) ? await readdir(local) : [], [], 'nothing of Keystone inside the private clone');
});
