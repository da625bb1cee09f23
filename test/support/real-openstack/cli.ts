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
   * output there fails the batch, quoting it. The shell takes no global option, per command or before the
   * commands: give them as their variables (`{ OS_COMPUTE_API_VERSION: '2.79' }`).
   */
  batch(user: U, commands: string[][], env?: Record<string, string>): Promise<string>;
  /** `batch` of commands that each print one document, with `-f json`: the documents parsed, in order. */
  batchJson(user: U, commands: string[][], env?: Record<string, string>): Promise<any[]>;
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
    batch: (user, commands, extraEnv = {}) =>
      new Promise((resolve, reject) => {
        const odd = commands.flat().find((a) => typeof a !== 'string' || !/^[\w.:=/@-]+$/.test(a));
        if (odd !== undefined || commands.flat().includes(undefined as never)) {
          return reject(new Error(`batch: argument ${JSON.stringify(odd)} is missing or would need quoting`));
        }
        const child = execFile(OPENSTACK_CLI, [], { env: { ...env, ...extraEnv, OS_CLOUD: user }, cwd: home, timeout: 600_000, maxBuffer: 16 << 20 }, (e, stdout, stderr) => {
          // An unknown command is reported on stdout; a failing one on stderr.
          const unknown = /^openstack: .* is not an openstack command/m.exec(stdout)?.[0];
          const failed = [stderr.trim(), unknown].filter(Boolean).join('\n');
          if (e || failed) reject(new Error(`openstack batch (as ${user}) failed: ${failed || String(e)}\ncommands: ${commands.map((c) => c.join(' ')).join('; ')}`));
          else resolve(stdout);
        });
        child.stdin?.end(commands.map((c) => `${c.join(' ')}\n`).join(''));
      }),
    async batchJson(user, commands, extraEnv = {}) {
      const stdout = await cli.batch(user, commands.map((c) => [...c, '-f', 'json']), extraEnv);
      const docs = splitJsonDocuments(stdout);
      if (docs.length !== commands.length) {
        throw new Error(`openstack batch (as ${user}) printed ${docs.length} documents for ${commands.length} commands:\n${stdout}`);
      }
      return docs;
    },
    close: () => rm(home, { recursive: true, force: true }),
  };
  return cli;
}

/**
 * The JSON documents the CLI printed one after the other (its JSON formatter indents nested lines, so a
 * document opens and closes at the start of a line); lines outside documents (notices) are skipped.
 */
export function splitJsonDocuments(text: string): any[] {
  const docs: any[] = [];
  let current: string[] | undefined;
  for (const line of text.split('\n')) {
    if (!current) {
      if (!/^[[{]/.test(line)) continue;
      current = [];
    }
    current.push(line);
    if (/^[\]}]\s*$/.test(line) || /^(\[\]|\{\})\s*$/.test(line)) {
      docs.push(JSON.parse(current.join('\n')));
      current = undefined;
    }
  }
  if (current) throw new Error(`an unfinished JSON document in the CLI's output:\n${current.join('\n')}`);
  return docs;
}
