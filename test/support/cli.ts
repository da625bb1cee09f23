// The real `openstack` CLI (python3-openstackclient + python3-magnumclient from Debian), installed
// when missing, run with a clean environment against a clouds.yaml of our own.
import { execFile } from 'node:child_process';
import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { BUILTIN_USERS } from '../../cloudsim/embedded.js';
import { aptInstall } from './apt.js';

const run = promisify(execFile);
export const CLI = '/usr/bin/openstack';
const MAGNUM_PLUGIN = '/usr/lib/python3/dist-packages/magnumclient';

/** The CLI is part of the test toolchain: install it when missing instead of skipping. */
export async function ensureCli(): Promise<void> {
  const present = async (p: string) => access(p).then(() => true, () => false);
  if ((await present(CLI)) && (await present(MAGNUM_PLUGIN))) return;
  await aptInstall(['python3-openstackclient', 'python3-magnumclient']);
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface Cli {
  /** Runs `openstack --os-cloud <user> <args>`; never throws on a non-zero exit. */
  run(user: keyof typeof BUILTIN_USERS, args: string[]): Promise<CliResult>;
  /**
   * Runs many commands in one `openstack` process (its interactive mode, commands read from stdin), as
   * `user`: one start-up and one login for all of them. The exit code says nothing of the commands; a
   * failing command writes to stderr (or, when unknown, says so on stdout).
   */
  batch(user: keyof typeof BUILTIN_USERS, commands: string[][]): Promise<CliResult>;
  /** The same with `-f json`, parsed; throws with stderr when the command fails. */
  json<T = any>(user: keyof typeof BUILTIN_USERS, args: string[]): Promise<T>;
  close(): Promise<void>;
}

export async function cliFor(authUrl: string): Promise<Cli> {
  await ensureCli();
  const home = await mkdtemp(join(tmpdir(), 'coe-cli-'));
  const clouds = Object.fromEntries(
    Object.entries(BUILTIN_USERS).map(([user, u]) => [
      user,
      {
        auth: { auth_url: authUrl, username: user, password: u.password, project_name: u.project, user_domain_name: 'Default', project_domain_name: 'Default' },
        region_name: 'RegionOne',
        identity_api_version: 3,
      },
    ]),
  );
  await writeFile(join(home, 'clouds.yaml'), stringify({ clouds }));
  // A clean environment: no OS_* variables, no clouds.yaml but ours (found in the working folder).
  // SHELL: `coe cluster config` picks its export syntax from it, as in a user's terminal.
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8', SHELL: '/bin/bash' };
  const cli: Cli = {
    async run(user, args) {
      try {
        const { stdout, stderr } = await run(CLI, ['--os-cloud', user, ...args], { env, cwd: home, timeout: 120_000 });
        return { code: 0, stdout, stderr };
      } catch (e) {
        const err = e as { code?: number; stdout?: string; stderr?: string };
        return { code: typeof err.code === 'number' ? err.code : 1, stdout: err.stdout ?? '', stderr: err.stderr ?? '' };
      }
    },
    async batch(user, commands) {
      const odd = commands.flat().find((a) => /[\s'"#;|&<>]/.test(a));
      if (odd !== undefined) throw new Error(`batch: argument ${JSON.stringify(odd)} would need quoting`);
      return new Promise((resolve) => {
        const child = execFile(CLI, [], { env: { ...env, OS_CLOUD: user }, cwd: home, timeout: 600_000, maxBuffer: 64 * 1024 * 1024 }, (e, stdout, stderr) => {
          const code = e && typeof (e as { code?: unknown }).code === 'number' ? ((e as { code: number }).code) : e ? 1 : 0;
          resolve({ code, stdout, stderr });
        });
        child.stdin?.end(commands.map((c) => `${c.join(' ')}\n`).join(''));
      });
    },
    async json(user, args) {
      const r = await cli.run(user, [...args, '-f', 'json']);
      if (r.code !== 0) throw new Error(`openstack ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
      // Some commands print a line ("Request to create ... accepted") before the document.
      const start = r.stdout.search(/^[[{]/m);
      return JSON.parse(start >= 0 ? r.stdout.slice(start) : r.stdout);
    },
    close: () => rm(home, { recursive: true, force: true }),
  };
  return cli;
}
