// `npm run build`: compiles src, workers, cloudsim, migrations and openapi (tsconfig.build.json: no tests, no
// benchmarks, no scripts) into dist/, and copies beside the JavaScript every other file of those
// folders, which the code reads at run time (cloudsim/seed.yaml, openapi/openstack/*.yaml, …).
// ensureBuild() is what `npm start` calls: it builds when dist/ was not built from the current
// sources (a content hash, like ensureNpmDeps). Plain Node: it runs before anything is compiled.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folders compiled into dist/ (tsconfig.build.json's include), in the same layout. */
export const BUILD_ROOTS = ['src', 'workers', 'cloudsim', 'migrations', 'openapi'];
/** Files outside those folders that decide the output. */
const BUILD_INPUTS = ['package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts/build.mjs'];
const STAMP = '.build-stamp';

export class BuildError extends Error {}

function files(root, dir) {
  const out = [];
  for (const name of readdirSync(join(root, dir))) {
    const rel = join(dir, name);
    if (statSync(join(root, rel)).isDirectory()) out.push(...files(root, rel));
    else out.push(rel);
  }
  return out;
}

const sources = (root) => BUILD_ROOTS.flatMap((d) => files(root, d)).sort();

/** A hash of every file the build reads: dist/ is stale when it differs from the one it was built from. */
export function sourceHash(root) {
  const hash = createHash('sha256');
  for (const rel of [...BUILD_INPUTS, ...sources(root)]) {
    if (!existsSync(join(root, rel))) continue;
    hash.update(`${rel}\0`);
    hash.update(readFileSync(join(root, rel)));
  }
  return hash.digest('hex');
}

/** A clean build into `outDir` (default <root>/dist). */
export function build(root, outDir = join(root, 'dist')) {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  if (!existsSync(tsc)) throw new BuildError('typescript is not installed: run `npm ci` (or `npm install`) first');
  const hash = sourceHash(root);
  rmSync(outDir, { recursive: true, force: true });
  const r = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', outDir], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) throw new BuildError(`tsc failed (exit ${r.status ?? r.signal}): see above`);
  for (const rel of sources(root)) {
    if (rel.endsWith('.ts')) continue;
    mkdirSync(dirname(join(outDir, rel)), { recursive: true });
    copyFileSync(join(root, rel), join(outDir, rel));
  }
  writeFileSync(join(outDir, STAMP), hash);
}

/** Builds into `outDir` (default <root>/dist) unless it was built there from the current sources; true when it built. */
export function ensureBuild(root, outDir = join(root, 'dist')) {
  const stamp = join(outDir, STAMP);
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === sourceHash(root)) return false;
  const shown = outDir.startsWith(root) ? relative(root, outDir) : outDir;
  console.log(`[setup] building ${shown}/ (absent, or built from other sources)`);
  build(root, outDir);
  return true;
}

// `node scripts/build.mjs [--out DIR] [--if-stale]`: a clean build into DIR (default dist/), or,
// with --if-stale, only when DIR was not built from the current sources.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const i = process.argv.indexOf('--out');
  const outDir = i > 0 && process.argv[i + 1] ? resolve(process.argv[i + 1]) : join(root, 'dist');
  try {
    const started = Date.now();
    const shown = relative(process.cwd(), outDir) || '.';
    const built = process.argv.includes('--if-stale') ? ensureBuild(root, outDir) : (build(root, outDir), true);
    console.log(built ? `built ${shown} in ${((Date.now() - started) / 1000).toFixed(1)} s` : `${shown} is up to date`);
  } catch (e) {
    if (!(e instanceof BuildError)) throw e;
    console.error(`build: ${e.message}`);
    process.exit(1);
  }
}
