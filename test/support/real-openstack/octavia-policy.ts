// Octavia's API policy, in one of two shapes:
// - 'default': Zed's policy in code, unchanged (the policy file overrides nothing). Every load-balancer call,
//   reads included, needs a load-balancer_* role in the project (load-balancer_member to write,
//   load-balancer_observer or _member to read) or an admin; plain `member` and `reader` get 403.
// - 'admin_or_owner': the older shape devstack installs, where the project's own users read and write its load
//   balancers with any role, and admins (role admin or load-balancer_admin) do everything. Written here from
//   what that shape means, as overrides of the base rules every API rule refers to.
// oslo.policy re-reads the policy file when its mtime changes, on the next request of each API worker, so a
// switch needs no restart; setOctaviaPolicy() still probes until both workers answer the new way.
import { chown, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { userIds } from './procs.js';

export type OctaviaPolicyMode = 'default' | 'admin_or_owner';

const ADMIN_OR_OWNER: Record<string, string> = {
  'context_is_admin': 'role:admin or role:load-balancer_admin',
  'load-balancer:owner': 'project_id:%(project_id)s',
  'load-balancer:admin': 'is_admin:True or rule:context_is_admin',
  'load-balancer:read': 'rule:load-balancer:admin or rule:load-balancer:owner',
  'load-balancer:read-global': 'rule:load-balancer:admin',
  'load-balancer:write': 'rule:load-balancer:admin or rule:load-balancer:owner',
  'load-balancer:read-quota': 'rule:load-balancer:admin or rule:load-balancer:owner',
  'load-balancer:read-quota-global': 'rule:load-balancer:admin',
  'load-balancer:write-quota': 'rule:load-balancer:admin',
};

export function policyText(mode: OctaviaPolicyMode): string {
  if (mode === 'default') return '# Zed\'s policy in code: nothing overridden (written by the magnum-ts test harness)\n{}\n';
  const lines = Object.entries(ADMIN_OR_OWNER).map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`);
  return `# admin_or_owner: project users own their load balancers (written by the magnum-ts test harness)\n${lines.join('\n')}\n`;
}

/**
 * Writes Octavia's policy file atomically (a new mtime, which is what oslo.policy watches). A switch away from
 * the default records the switching process, so that the policy of a test process that died before switching
 * back can be reset (resetAbandonedPolicy).
 */
export async function writeOctaviaPolicy(octaviaDir: string, mode: OctaviaPolicyMode): Promise<void> {
  const owner = join(octaviaDir, 'policy.owner');
  if (mode === 'default') await rm(owner, { force: true });
  else await writeFile(owner, `${process.pid}\n`);
  const file = join(octaviaDir, 'policy.yaml');
  const tmp = `${file}.tmp-${process.pid}`;
  await writeFile(tmp, policyText(mode), { mode: 0o644 });
  const { uid, gid } = await userIds('octavia');
  await chown(tmp, uid, gid);
  await rename(tmp, file);
}

/** Back to the default policy when the process that switched away from it is gone. */
export async function resetAbandonedPolicy(octaviaDir: string): Promise<void> {
  const pid = Number((await readFile(join(octaviaDir, 'policy.owner'), 'utf8').catch(() => '')).trim());
  if (!pid) return;
  try {
    process.kill(pid, 0);
  } catch {
    await writeOctaviaPolicy(octaviaDir, 'default');
  }
}
