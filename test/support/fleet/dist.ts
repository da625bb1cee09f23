// The compiled service (`npm run build`'s output) for tests and benchmarks that run it as real
// processes: built into .local/test-dist when absent or built from other sources, one builder at a
// time across test processes (a lock directory), never touching the dist/ that `npm start` runs.
// Node finds the packages in the repository's node_modules above it, as it does for dist/.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

export const ROOT = join(import.meta.dirname, '..', '..', '..');
export const TEST_DIST = join(ROOT, '.local', 'test-dist');
/** The entry point of every mode (api, worker, migrate, sim). */
export const MAIN = join(TEST_DIST, 'src', 'main.js');

const LOCK = join(ROOT, '.local', 'test-dist.lock');
const STALE_LOCK_MS = 10 * 60_000;

function lockAlive(): boolean {
  try {
    const pid = Number(readFileSync(join(LOCK, 'pid'), 'utf8'));
    if (Date.now() - statSync(LOCK).mtimeMs > STALE_LOCK_MS) return false;
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: alive but not ours; no pid file yet: the owner is writing it.
    return (e as NodeJS.ErrnoException).code === 'EPERM' || (e as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/** Builds .local/test-dist unless it is current; resolves with the entry point. */
export async function builtDist(): Promise<string> {
  mkdirSync(join(ROOT, '.local'), { recursive: true });
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      if (!lockAlive()) rmSync(LOCK, { recursive: true, force: true });
      else await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    writeFileSync(join(LOCK, 'pid'), String(process.pid));
    await promisify(execFile)(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), '--out', TEST_DIST, '--if-stale'], { cwd: ROOT, maxBuffer: 16 << 20 });
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
  return MAIN;
}
