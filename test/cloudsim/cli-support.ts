// The CLI plugins the simulator's CLI tests drive (python3-designateclient, python3-octaviaclient,
// python3-manilaclient, python3-barbicanclient): part of the test toolchain, installed from Debian when
// missing, as test/support/cli.ts does for the CLI.
import { access } from 'node:fs/promises';
import { aptInstall } from '../support/apt.js';

/** Each plugin's Debian package and the module folder that shows it is installed. */
export const CLI_PLUGINS = {
  designate: ['python3-designateclient', '/usr/lib/python3/dist-packages/designateclient'],
  octavia: ['python3-octaviaclient', '/usr/lib/python3/dist-packages/octaviaclient'],
  manila: ['python3-manilaclient', '/usr/lib/python3/dist-packages/manilaclient'],
  barbican: ['python3-barbicanclient', '/usr/lib/python3/dist-packages/barbicanclient'],
} as const;

/** The plugins that are missing, installed in one apt-get run. */
export async function ensureCliPlugins(names: (keyof typeof CLI_PLUGINS)[]): Promise<void> {
  const present = await Promise.all(names.map((n) => access(CLI_PLUGINS[n][1]).then(() => true, () => false)));
  await aptInstall(names.filter((_, i) => !present[i]).map((n) => CLI_PLUGINS[n][0]));
}
