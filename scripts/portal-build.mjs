// The portal's build for `npm start` and `npm test`: rebuilt when portal/dist is missing or was
// built from other sources (a content hash of the portal's sources, the lock file, the generated
// API types and the label registry it bundles; never mtimes, which mean nothing in a clone).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { SetupError } from './local-services.mjs';

/** Files whose content decides the build, relative to the repository. */
const INPUTS = ['portal/src', 'portal/build.ts', 'portal/labels-registry.ts', 'portal/index.html', 'portal/favicon.svg', 'package-lock.json', 'openapi/types.ts', 'src/kube', 'src/cluster-spec', 'src/features'];

function files(root, path) {
  const abs = join(root, path);
  if (!existsSync(abs)) return [];
  if (!statSync(abs).isDirectory()) return [path];
  return readdirSync(abs).sort().flatMap((name) => files(root, relative(root, join(abs, name))));
}

export function portalSourceHash(root) {
  const hash = createHash('sha256');
  for (const f of INPUTS.flatMap((p) => files(root, p))) hash.update(f).update('\0').update(readFileSync(join(root, f))).update('\0');
  return hash.digest('hex');
}

/** Builds portal/dist unless it was built from these very sources. */
export function ensurePortal(root) {
  const want = portalSourceHash(root);
  const stamp = join(root, 'portal', 'dist', '.build-stamp');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === want && existsSync(join(root, 'portal', 'dist', 'index.html'))) return;
  console.log('[setup] building the portal (portal/dist)');
  const r = spawnSync(join(root, 'node_modules', '.bin', 'tsx'), ['portal/build.ts', want], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) throw new SetupError('the portal did not build (see above)');
}
