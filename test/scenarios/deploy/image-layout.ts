// The image's runtime stage laid out in a folder as the Dockerfile says, without Docker: what each
// COPY brings, made the way its stage makes it (`npm run build` for dist/, the lock file's
// production packages for node_modules), and what the build context holds (.dockerignore).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT, stage, type Stage } from './support.js';

const run = promisify(execFile);

/** .dockerignore's rules in order; a path is in the context when the last rule matching it (or a parent) is a `!` rule, or none matches. */
export function inBuildContext(path: string, ignore = readFileSync(join(ROOT, '.dockerignore'), 'utf8')): boolean {
  const rules = ignore
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => ({ keep: l.startsWith('!'), re: globToRegExp(l.replace(/^!/, '').replace(/^\/+|\/+$/g, '')) }));
  const parts = path.split('/');
  let kept = true;
  for (const r of rules) {
    for (let i = 1; i <= parts.length; i++) if (r.re.test(parts.slice(0, i).join('/'))) kept = r.keep;
  }
  return kept;
}

function globToRegExp(glob: string): RegExp {
  const re = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*\*/g, '\0').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]').replace(/\0/g, '.*');
  return new RegExp(`^${re}$`);
}

/** The lock file's packages that `npm ci --omit=dev` installs (top level; nested ones come with their parent's folder). */
export function productionPackages(): string[] {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
  return Object.entries(lock.packages)
    .filter(([k, p]) => /^node_modules\/(@[^/]+\/)?[^/]+$/.test(k) && !p.dev)
    .map(([k]) => k)
    .filter((k) => existsSync(join(ROOT, k))); // optional packages of other platforms are not installed here either
}

/** Hard links (a copy across file systems) of a folder tree. */
function linkTree(src: string, dst: string): void {
  const st = lstatSync(src);
  if (st.isSymbolicLink()) return symlinkSync(readlinkSync(src), dst);
  if (st.isDirectory()) {
    mkdirSync(dst, { recursive: true });
    for (const name of readdirSync(src)) linkTree(join(src, name), join(dst, name));
    return;
  }
  try {
    linkSync(src, dst);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
    copyFileSync(src, dst);
  }
}

/** What each `COPY --from=<stage> <path>` of the runtime stage is made from here. */
type Producer = (dest: string) => Promise<void>;

/**
 * Lays the runtime stage out in a folder kept between runs (dist/ is rebuilt when the sources
 * change, node_modules when the lock file does) and returns it. Fails on a COPY it cannot make.
 */
export async function layOutRuntime(stages: Stage[]): Promise<string> {
  const app = join(tmpdir(), `magnum-ts-image-${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}`, 'app');
  mkdirSync(app, { recursive: true, mode: 0o755 });
  const producers: Record<string, Producer> = {
    'build /app/dist': async (dest) => {
      await run(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), '--out', dest, '--if-stale'], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
    },
    // The build stage's `tsx portal/build.ts` (here the build npm test keeps current, scripts/portal-build.mjs).
    'build /app/portal/dist': async (dest) => {
      const builder = (await import(join(ROOT, 'scripts', 'portal-build.mjs'))) as { ensurePortal(root: string): void };
      builder.ensurePortal(ROOT);
      rmSync(dest, { recursive: true, force: true });
      mkdirSync(dirname(dest), { recursive: true });
      linkTree(join(ROOT, 'portal', 'dist'), dest);
    },
    'prod-deps /app/node_modules': async (dest) => {
      const lockHash = createHash('sha256').update(readFileSync(join(ROOT, 'package-lock.json'))).digest('hex');
      const stamp = join(dest, '.lock-hash');
      if (existsSync(stamp) && readFileSync(stamp, 'utf8') === lockHash) return;
      rmSync(dest, { recursive: true, force: true });
      for (const pkg of productionPackages()) {
        mkdirSync(dirname(join(dest, pkg.slice('node_modules/'.length))), { recursive: true });
        linkTree(join(ROOT, pkg), join(dest, pkg.slice('node_modules/'.length)));
      }
      writeFileSync(stamp, lockHash);
    },
  };
  const runtime = stage(stages, 'runtime');
  const workdir = runtime.steps.find((s) => s.keyword === 'WORKDIR')?.args[0];
  if (workdir !== '/app') throw new Error(`the runtime stage's WORKDIR is ${workdir}: teach test/scenarios/deploy/image-layout.ts`);
  for (const s of runtime.steps.filter((x) => x.keyword === 'COPY' || x.keyword === 'ADD')) {
    const dest = join(app, s.args.at(-1)!);
    const sources = s.args.slice(0, -1);
    if (s.flags.from === undefined) {
      for (const src of sources) cpSync(join(ROOT, src), s.args.at(-1)!.endsWith('/') ? join(dest, src) : dest, { recursive: true });
      continue;
    }
    const producer = producers[`${s.flags.from} ${sources.join(' ')}`];
    if (!producer || s.keyword !== 'COPY') throw new Error(`line ${s.line}: ${s.keyword} --from=${s.flags.from} ${sources.join(' ')}: teach test/scenarios/deploy/image-layout.ts how that stage makes it`);
    await producer(dest);
  }
  return app;
}
