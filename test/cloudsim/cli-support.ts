// The CLI plugins the simulator's CLI tests drive (python3-designateclient, python3-octaviaclient):
// part of the test toolchain, installed from Debian when missing, as test/support/cli.ts does for the CLI.
import { execFile } from 'node:child_process';
import { access } from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

export async function ensureCliPlugin(pkg: string, modulePath: string): Promise<void> {
  if (await access(modulePath).then(() => true, () => false)) return;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    await run('apt-get', ['install', '-y', '-q', pkg], { env, timeout: 900_000 });
  } catch {
    await run('apt-get', ['update', '-q'], { env, timeout: 600_000 });
    await run('apt-get', ['install', '-y', '-q', pkg], { env, timeout: 900_000 });
  }
}
