// Horizon's static files as Debian's settings need them (COMPRESS_OFFLINE): collected and compressed
// once, as root, into <state>/static-<stamp of the package versions>, and reused until a package
// changes. One build at a time across test processes: the build runs in a child process holding an
// flock(1) on the state folder's lock file, and checks again once it has it.
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { localSettings, manageFile, settingsModule, SETTINGS_MODULE, wsgiFile, type HorizonSettings } from './horizon-settings.js';

const run = promisify(execFile);
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PYTHON = '/usr/bin/python3';
/** Bump when what the static build depends on in horizon-settings.ts changes. */
const STATIC_FORMAT = 1;

/** The version of an installed Debian package, or undefined. */
export async function installedVersion(pkg: string): Promise<string | undefined> {
  const r = await run('dpkg-query', ['-W', '-f=${Status} ${Version}', pkg]).catch(() => ({ stdout: '' }));
  return /^install ok installed (\S+)$/.exec(r.stdout.trim())?.[1];
}

/** The Python files of an instance (or of the static build) in `dir`. */
export async function writeInstance(dir: string, s: HorizonSettings): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o755 });
  await writeFile(join(dir, 'local_settings.py'), localSettings(s));
  await writeFile(join(dir, `${SETTINGS_MODULE}.py`), settingsModule);
  await writeFile(join(dir, 'wsgi.py'), wsgiFile);
  await writeFile(join(dir, 'manage.py'), manageFile);
}

const manage = (dir: string, ...args: string[]) =>
  run(PYTHON, [join(dir, 'manage.py'), ...args], { cwd: dir, env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8', PYTHONDONTWRITEBYTECODE: '1', PYTHONWARNINGS: 'ignore' }, timeout: 900_000, maxBuffer: 64 << 20 });

/** The static folder for the installed packages, built first when missing. */
export async function staticFiles(state: string): Promise<string> {
  const versions = await Promise.all(['openstack-dashboard', 'python3-django-horizon', 'python3-magnum-ui', 'python3-django-compressor'].map(installedVersion));
  const stamp = createHash('sha256').update(`${versions.join(' ')} format ${STATIC_FORMAT}`).digest('hex').slice(0, 12);
  const root = join(state, `static-${stamp}`);
  if (existsSync(join(root, 'BUILT'))) return root;
  const build = join(state, `static-build-${randomBytes(4).toString('hex')}`);
  try {
    await run('flock', [join(state, 'static.lock'), process.execPath, '--import', 'tsx', fileURLToPath(import.meta.url), state, root, build], {
      cwd: REPO_ROOT,
      timeout: 1_200_000,
      maxBuffer: 64 << 20,
    });
  } finally {
    await rm(build, { recursive: true, force: true });
  }
  if (!existsSync(join(root, 'BUILT'))) throw new Error(`the static build did not produce ${root}`);
  return root;
}

/** In the lock: collectstatic and compress into `build`/static, renamed to `root`; older builds go. */
async function buildStatic(state: string, root: string, build: string): Promise<void> {
  if (existsSync(join(root, 'BUILT'))) return;
  const out = join(build, 'static');
  await writeInstance(build, { keystoneUrl: 'http://127.0.0.1:5000/v3', secretKey: randomBytes(24).toString('hex'), staticRoot: out });
  await manage(build, 'collectstatic', '--noinput', '--clear', '-v', '0');
  await manage(build, 'compress', '--force', '-v', '0');
  await writeFile(join(out, 'BUILT'), `${new Date().toISOString()}\n`);
  await rm(root, { recursive: true, force: true });
  await rename(out, root);
  for (const name of await readdir(state)) {
    if (/^static-[0-9a-f]{12}$/.test(name) && join(state, name) !== root) await rm(join(state, name), { recursive: true, force: true });
  }
}

// The lock holder: `node --import tsx horizon-static.ts <state> <root> <build>`.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [state, root, build] = process.argv.slice(2) as [string, string, string];
  buildStatic(state, root, build).catch((e: Error & { stderr?: string }) => {
    process.stderr.write(`${e.message}\n${e.stderr ?? ''}\n`);
    process.exit(1);
  });
}
