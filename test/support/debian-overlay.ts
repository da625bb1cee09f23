// Newer Debian releases' pure-Python packages, for the client lanes that need a newer client than this
// machine's release ships (openstacksdk 4.x, Ansible's openstack.cloud 2.x) while PyPI is out of reach.
// apt itself fetches them, with its own state under a directory of ours (the machine's sources and
// dpkg database untouched), so the archive's signature and every package's hash are checked as for an
// install; the packages are then unpacked (`dpkg-deb -x`) into a prefix the lane puts on PYTHONPATH:
// a virtual environment made of Debian's packages. The rest of their dependencies come from this
// machine's release, installed the usual way. Kept between runs; remade when the package list changes.
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const MIRROR = process.env.TEST_DEBIAN_MIRROR ?? 'http://deb.debian.org/debian';

export interface Overlay {
  /** What `dpkg-deb -x` unpacked into. */
  root: string;
  /** The unpacked packages' Python modules, for PYTHONPATH. */
  pythonPath: string;
  /** The unpacked packages' commands (run them with /usr/bin/python3). */
  bin: string;
  /** Package → version, as apt downloaded them. */
  versions: Record<string, string>;
}

// Made again from scratch unless `ready` names the same suite and packages; one overlay at a time.
const MAKE = `set -eu
D="$1"; SUITE="$2"; MIRROR="$3"; shift 3
WANT="$SUITE $*"
if [ -f "$D/ready" ] && [ "$(cat "$D/ready")" = "$WANT" ]; then exit 0; fi
rm -rf "$D/root" "$D/debs" "$D/ready"
mkdir -p "$D/state/lists/partial" "$D/cache/archives/partial" "$D/debs" "$D/root"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR $SUITE main" > "$D/sources.list"
touch "$D/state/status"
OPTS="-q -o Dir::Etc::SourceList=$D/sources.list -o Dir::Etc::SourceParts=/dev/null -o Dir::State=$D/state"
OPTS="$OPTS -o Dir::State::status=$D/state/status -o Dir::Cache=$D/cache -o APT::Sandbox::User=root"
apt-get $OPTS update >/dev/null
cd "$D/debs"
apt-get $OPTS download "$@" >/dev/null
for f in *.deb; do dpkg-deb -x "$f" "$D/root"; done
echo "$WANT" > "$D/ready"`;

/** Fetches and unpacks `packages` from Debian `suite` (e.g. trixie) unless already there. */
export async function debianOverlay(suite: string, packages: string[]): Promise<Overlay> {
  const dir = join(tmpdir(), `magnum-tests-debian-${suite}`);
  await run('flock', [`${dir}.lock`, 'sh', '-c', MAKE, 'debian-overlay', dir, suite, MIRROR, ...packages], { timeout: 900_000, maxBuffer: 16 << 20 });
  const versions: Record<string, string> = {};
  const { stdout } = await run('sh', ['-c', 'for f in "$1"/*.deb; do dpkg-deb -f "$f" Package Version; done', 'versions', join(dir, 'debs')]);
  const fields = stdout.split('\n').filter(Boolean);
  for (let i = 0; i + 1 < fields.length; i += 2) versions[fields[i]!.replace(/^Package: /, '')] = fields[i + 1]!.replace(/^Version: /, '');
  const root = join(dir, 'root');
  return { root, pythonPath: join(root, 'usr/lib/python3/dist-packages'), bin: join(root, 'usr/bin'), versions };
}

/**
 * The client lanes' newer Python clients, from Debian trixie: openstacksdk 4.x with the keystoneauth1 and
 * helpers it needs newer than bookworm's, and Ansible with its bundled openstack.cloud 2.x. One list for
 * every lane, so they share one overlay. Bookworm's own packages bring the rest of their dependencies.
 */
export const TRIXIE_CLIENTS = [
  'python3-openstacksdk', 'python3-keystoneauth1', 'python3-os-service-types', 'python3-dogpile.cache',
  'python3-platformdirs', 'python3-typing-extensions', 'ansible', 'ansible-core',
];
/** What the overlay's packages need from this machine's release. */
export const TRIXIE_CLIENTS_BASE = ['python3-openstacksdk', 'python3-jinja2', 'python3-resolvelib', 'python3-yaml', 'python3-packaging', 'python3-cryptography'];
