// The real `openstack` CLI (Debian's python3-openstackclient with python3-octaviaclient) against the test
// cloud, installed when missing, run with a clean environment and a clouds.yaml of its own: one cloud entry
// per user given.
import { execFile } from 'node:child_process';
import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { aptInstall } from '../apt.js';
import type { Credentials } from './rest.js';

export const OPENSTACK_CLI = '/usr/bin/openstack';
const PLUGINS = [
  ['python3-openstackclient', OPENSTACK_CLI],
  ['python3-octaviaclient', '/usr/lib/python3/dist-packages/octaviaclient'],
] as const;

export async function ensureOpenStackCli(): Promise<void> {
  const present = await Promise.all(PLUGINS.map(([, p]) => access(p).then(() => true, () => false)));
  await aptInstall(PLUGINS.filter((_, i) => !present[i]).map(([pkg]) => pkg));
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface OpenStackCli<U extends string> {
  /** `openstack --os-cloud <user> <args>`; never throws on a non-zero exit. */
  run(user: U, args: string[]): Promise<CliResult>;
  /** The same with `-f json`, parsed; throws with stderr when the command fails. */
  json<T = any>(user: U, args: string[]): Promise<T>;
  /** A command that prints nothing on success (deletes, sets); throws with stderr when it fails. */
  ok(user: U, args: string[]): Promise<void>;
  /**
   * Commands in order in one `openstack` process (its interactive mode reads them from stdin): one start-up and
   * one login for all. The shell carries on after a failing command and writes its error to stderr: any
   * output there fails the batch, quoting it.
   */
  batch(user: U, commands: string[][]): Promise<string>;
  close(): Promise<void>;
}

export async function openstackCli<U extends string>(authUrl: string, region: string, users: Record<U, Credentials>): Promise<OpenStackCli<U>> {
  await ensureOpenStackCli();
  const home = await mkdtemp(join(tmpdir(), 'realos-cli-'));
  const clouds = Object.fromEntries(
    Object.entries<Credentials>(users).map(([key, u]) => [
      key,
      {
        auth: { auth_url: authUrl, username: u.name, password: u.password, project_name: u.project, user_domain_name: u.domain, project_domain_name: u.domain },
        region_name: region,
        interface: 'public',
        identity_api_version: 3,
      },
    ]),
  );
  await writeFile(join(home, 'clouds.yaml'), stringify({ clouds }), { mode: 0o600 });
  // A clean environment: no OS_* variables, no clouds.yaml but ours (found in the working folder).
  const env = { PATH: '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8' };
  const cli: OpenStackCli<U> = {
    run: (user, args) =>
      new Promise((resolve) => {
        execFile(OPENSTACK_CLI, ['--os-cloud', user, ...args], { env, cwd: home, timeout: 300_000, maxBuffer: 16 << 20 }, (e, stdout, stderr) => {
          const code = e ? (typeof (e as { code?: unknown }).code === 'number' ? (e as { code: number }).code : 1) : 0;
          resolve({ code, stdout, stderr });
        });
      }),
    async json(user, args) {
      const r = await cli.run(user, [...args, '-f', 'json']);
      if (r.code !== 0) throw new Error(`openstack ${args.join(' ')} (as ${user}) failed (${r.code}): ${r.stderr.trim()}`);
      // Some commands print a line before the document.
      const start = r.stdout.search(/^[[{]/m);
      return JSON.parse(start >= 0 ? r.stdout.slice(start) : r.stdout);
    },
    async ok(user, args) {
      const r = await cli.run(user, args);
      if (r.code !== 0) throw new Error(`openstack ${args.join(' ')} (as ${user}) failed (${r.code}): ${r.stderr.trim()}`);
    },
    batch: (user, commands) =>
      new Promise((resolve, reject) => {
        const odd = commands.flat().find((a) => !/^[\w.:=/@-]+$/.test(a));
        if (odd !== undefined) return reject(new Error(`batch: argument ${JSON.stringify(odd)} would need quoting`));
        const child = execFile(OPENSTACK_CLI, [], { env: { ...env, OS_CLOUD: user }, cwd: home, timeout: 600_000, maxBuffer: 16 << 20 }, (e, stdout, stderr) => {
          if (e || stderr.trim()) reject(new Error(`openstack batch (as ${user}) failed: ${stderr.trim() || String(e)}\ncommands: ${commands.map((c) => c.join(' ')).join('; ')}`));
          else resolve(stdout);
        });
        child.stdin?.end(commands.map((c) => `${c.join(' ')}\n`).join(''));
      }),
    close: () => rm(home, { recursive: true, force: true }),
  };
  return cli;
}
