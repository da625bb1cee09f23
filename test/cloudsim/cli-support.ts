// The CLI plugins the simulator's CLI tests drive (python3-designateclient, python3-octaviaclient):
// part of the test toolchain, installed from Debian when missing, as test/support/cli.ts does for the CLI.
import { access } from 'node:fs/promises';
import { aptInstall } from '../support/apt.js';

export async function ensureCliPlugin(pkg: string, modulePath: string): Promise<void> {
  if (await access(modulePath).then(() => true, () => false)) return;
  await aptInstall([pkg]);
}
