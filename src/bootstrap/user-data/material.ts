// A node's secrets never ride in its user-data (which Nova hands to anything on the node that reaches the
// metadata service, pods included): the CA and service-account keys, the join token and the KMS credential
// are its *material*, fetched once at first boot from this service (POST <url>/bootstrap/v1/material) with a
// one-time token bound to the server, over TLS pinned to the CA the user-data carries when one is configured.
// The user-data carries only where to fetch from and that token, which is refused once used or expired.
//
// On the wire the material is one line per file, `<mode> <path> <base64 content>`, which the bootstrap
// script writes with nothing but the shell and coreutils (Fedora CoreOS has no Python).
import type { NodeFile } from './node-files.js';
import type { MaterialSource } from './inputs.js';

/** What the node's script sources: the URL and the one-time token (removed once used). */
export const MATERIAL_ENV_PATH = '/etc/magnum/node-material.env';
/** The CA the service's certificate must chain to, when the deployment names one (NODE_MATERIAL_CA_FILE). */
export const MATERIAL_CA_PATH = '/etc/magnum/node-material-ca.crt';
/** The endpoint below the service's URL. */
export const MATERIAL_PATH = '/bootstrap/v1/material';
/**
 * How often the node asks (every 2 s) while the service has not yet bound its token to the server: the server was
 * just made, or Nova's answer to its create was lost and the worker finds it again only at a later try. 450 tries
 * are 15 minutes, NODE_MATERIAL_TTL_S's default; once the token expires the service answers 410 and the node stops.
 */
export const MATERIAL_ATTEMPTS = 450;

const TOKEN = /^[A-Za-z0-9_-]{32,128}$/;

/** The files of the user-data that say where the node's material is: a token outside base64url or a URL with a quote is refused. */
export function materialSourceFiles(m: MaterialSource): NodeFile[] {
  if (!TOKEN.test(m.token)) throw new Error('the node material token must be base64url');
  if (!/^https?:\/\/[^\s'"`$\\]+$/.test(m.url)) throw new Error(`the node material URL ${m.url} is not a plain http(s) URL`);
  return [
    { path: MATERIAL_ENV_PATH, content: `MATERIAL_URL='${m.url.replace(/\/+$/, '')}${MATERIAL_PATH}'\nMATERIAL_TOKEN='${m.token}'\n`, permissions: '0600' },
    ...(m.caCert ? [{ path: MATERIAL_CA_PATH, content: m.caCert, permissions: '0644' }] : []),
  ];
}

/** The material as the endpoint answers it: `<mode> <path> <base64>` per line. */
export function materialLines(files: readonly NodeFile[]): string {
  return files.map((f) => `${f.permissions} ${f.path} ${Buffer.from(f.content, 'utf8').toString('base64')}\n`).join('');
}

/** The files of `materialLines` (what a node writes). */
export function parseMaterialLines(text: string): NodeFile[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const [permissions, path, data] = l.split(' ');
      if (!permissions || !/^0[0-7]{3}$/.test(permissions) || !path?.startsWith('/') || data === undefined) throw new Error(`not a material line: ${l.slice(0, 80)}`);
      return { path, permissions, content: Buffer.from(data, 'base64').toString('utf8') };
    });
}

/** The script's part: fetch the material once (retrying while the service binds the token), write it, forget the token. */
export function fetchMaterial(): string[] {
  return [
    "# the node's secrets (CA keys, the join token, credentials) are not in its user-data: fetched once, now",
    `[ -f ${MATERIAL_ENV_PATH} ] || fail "no ${MATERIAL_ENV_PATH}: the node cannot fetch its secrets"`,
    `# shellcheck source=/dev/null`,
    `. ${MATERIAL_ENV_PATH}`,
    'install -d -m 0700 /run/magnum',
    'material=/run/magnum/node-material',
    'pin=()',
    `if [ -f ${MATERIAL_CA_PATH} ]; then pin=(--cacert ${MATERIAL_CA_PATH}); fi`,
    'status=000',
    `for attempt in $(seq 1 ${MATERIAL_ATTEMPTS}); do`,
    '  status="$(curl -sS -o "$material" -w \'%{http_code}\' --max-time 20 "${pin[@]}" -X POST -H "Authorization: Bearer ${MATERIAL_TOKEN}" -H "X-Server-Id: ${iid}" "${MATERIAL_URL}" 2>/dev/null)" || true',
    '  case "$status" in',
    '    200) break ;;',
    '    409|429|5??|000) log "node material not ready (HTTP ${status}, attempt ${attempt}); retrying"; sleep 2 ;;',
    '    *) fail "node material refused (HTTP ${status}): $(head -c 300 "$material" 2>/dev/null)" ;;',
    '  esac',
    'done',
    `[ "$status" = 200 ] || fail "node material not fetched after ${MATERIAL_ATTEMPTS} attempts (HTTP \${status})"`,
    `rm -f ${MATERIAL_ENV_PATH}`,
    'while read -r mode path data; do',
    '  install -d -m 0755 "$(dirname "$path")"',
    '  ( umask 077; printf \'%s\' "$data" | base64 -d > "$path" )',
    '  chmod "$mode" "$path"',
    'done < "$material"',
    'rm -f "$material"',
    'log "node material fetched"',
  ];
}
