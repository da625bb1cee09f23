// What a booting node does before kubeadm when its user-data names where its secrets are (the service's node
// material: /etc/magnum/node-material.env with MATERIAL_URL and MATERIAL_TOKEN): it asks that URL once, over
// HTTP as the real bootstrap script does with curl, presenting the token and its own server id, waits while the
// service answers 409 (its token not yet bound to the server), and writes the `<mode> <path> <base64>` lines it
// gets. Anything else and the node fails its bootstrap, saying why on its console.
import { MATERIAL_ATTEMPTS as ATTEMPTS } from '../../src/bootstrap/user-data/material.js';

const ENV_PATH = '/etc/magnum/node-material.env';

export interface MaterialSource {
  url: string;
  token: string;
}

/** The URL and token the node's user-data names, or undefined when it carries its secrets itself. */
export function materialSource(files: ReadonlyMap<string, string>): MaterialSource | undefined {
  const env = files.get(ENV_PATH);
  if (env === undefined) return undefined;
  const value = (name: string) => new RegExp(`^${name}='([^']*)'$`, 'm').exec(env)?.[1];
  const url = value('MATERIAL_URL');
  const token = value('MATERIAL_TOKEN');
  return url && token ? { url, token } : undefined;
}

export type MaterialOutcome = { files: Map<string, string> } | { error: string };

/** Fetches the node's material as server `serverId`; `pause` waits between tries (the script's `sleep 2`). */
export async function fetchMaterial(src: MaterialSource, serverId: string, pause: () => Promise<void>): Promise<MaterialOutcome> {
  let last = '000';
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    let status = 0;
    let body = '';
    try {
      const res = await fetch(src.url, { method: 'POST', headers: { authorization: `Bearer ${src.token}`, 'x-server-id': serverId }, signal: AbortSignal.timeout(20_000) });
      status = res.status;
      body = await res.text();
    } catch {
      status = 0;
    }
    last = String(status).padStart(3, '0');
    if (status === 200) return { files: parseLines(body) };
    if (status === 409 || status === 429 || status === 0 || status >= 500) {
      await pause();
      continue;
    }
    return { error: `node material refused (HTTP ${status}): ${body.slice(0, 300)}` };
  }
  return { error: `node material not fetched after ${ATTEMPTS} attempts (HTTP ${last})` };
}

function parseLines(text: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const line of text.split('\n')) {
    const [, path, data] = line.split(' ');
    if (path && data !== undefined) files.set(path, Buffer.from(data, 'base64').toString('utf8'));
  }
  return files;
}
