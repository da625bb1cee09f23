// What a booting guest's first-boot agent makes of its user-data, as the agent of its image would:
// cloud-init (Ubuntu and the images that say nothing) reads #cloud-config and ignores what it does
// not understand; Ignition (Fedora CoreOS) reads only Ignition configs of spec 3.x and fails the
// boot on anything else but empty user-data. Both yield the files they would write, the scripts
// they would run and the lines they print on the console.
import { gunzipSync } from 'node:zlib';
import { parse } from 'yaml';

export type GuestAgent = 'cloud-init' | 'ignition';

export interface GuestRead {
  /** Path → content of the files the agent writes. */
  files: Map<string, string>;
  /** Paths of the scripts it runs (cloud-init's runcmd, Ignition's enabled units' ExecStart). */
  runs: string[];
  hostname: string | undefined;
  /** What the agent prints on the console about the user-data. */
  console: string[];
}

type Doc = Record<string, unknown>;
const obj = (v: unknown): Doc => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Doc) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The raw text of Nova's base64 user_data (gzip undone, as both agents do). */
export function userDataText(userData: string | null): string {
  if (!userData) return '';
  let raw = Buffer.from(userData, 'base64');
  if (raw[0] === 0x1f && raw[1] === 0x8b) raw = gunzipSync(raw);
  return raw.toString('utf8');
}

function decodeWriteFile(content: string, encoding: unknown): string {
  const e = typeof encoding === 'string' ? encoding.toLowerCase() : '';
  if (e === 'b64' || e === 'base64') return Buffer.from(content, 'base64').toString('utf8');
  if (e === 'gz+b64' || e === 'gzip+base64' || e === 'gz+base64' || e === 'gzip+b64') return gunzipSync(Buffer.from(content, 'base64')).toString('utf8');
  return content;
}

/** The head of the user-data as Python prints bytes (cloud-init's log shows b'...'). */
const excerpt = (text: string) => text.slice(0, 60).replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/'/g, "\\'");

function readCloudInit(text: string): GuestRead {
  const empty: GuestRead = { files: new Map(), runs: [], hostname: undefined, console: [] };
  if (text.trim() === '') return empty;
  if (!text.startsWith('#cloud-config')) {
    // A shell script would run, but none of ours is one; anything else cloud-init does not know.
    if (text.startsWith('#!')) return empty;
    return { ...empty, console: [`cloud-init[1021]: WARNING: Unhandled non-multipart (text/x-not-multipart) userdata: 'b'${excerpt(text)}'...'`] };
  }
  let doc: Doc;
  try {
    doc = obj(parse(text));
  } catch (e) {
    return { ...empty, console: [`cloud-init[1021]: WARNING: Failed loading yaml blob. ${(e as Error).message.split('\n')[0]}`] };
  }
  const files = new Map<string, string>();
  for (const f of Array.isArray(doc.write_files) ? doc.write_files : []) {
    const path = str(obj(f).path);
    const content = obj(f).content;
    if (path && typeof content === 'string') files.set(path, decodeWriteFile(content, obj(f).encoding));
  }
  const runs = (Array.isArray(doc.runcmd) ? doc.runcmd : [])
    .map((c) => (Array.isArray(c) ? c[0] : typeof c === 'string' ? c.split(/\s+/)[0] : undefined))
    .filter((p): p is string => typeof p === 'string' && files.has(p));
  return { files, runs, hostname: str(doc.hostname), console: [] };
}

/** An RFC 2397 data URL's bytes; undefined for anything else (a remote source is not fetched here). */
function dataUrl(source: string): Buffer | undefined {
  const m = /^data:([^,]*),(.*)$/s.exec(source);
  if (!m) return undefined;
  if (m[1]!.split(';').includes('base64')) return Buffer.from(m[2]!, 'base64');
  return Buffer.from(decodeURIComponent(m[2]!), 'utf8');
}

const IGNITION_FAILED = [
  'Ignition has failed. Please ensure your config is valid. Note that only',
  'Ignition spec v3.0.0+ configs are accepted.',
];

function readIgnition(text: string): GuestRead {
  const empty: GuestRead = { files: new Map(), runs: [], hostname: undefined, console: [] };
  if (text.trim() === '') return { ...empty, console: ['ignition[812]: not a config (empty): ignoring user-provided config'] };
  let doc: Doc;
  try {
    doc = obj(JSON.parse(text));
  } catch (e) {
    return { ...empty, console: [`ignition[812]: failed to acquire config: config is not valid: ${(e as Error).message}`, ...IGNITION_FAILED] };
  }
  const version = str(obj(doc.ignition).version) ?? '';
  if (!/^3\.\d+\.\d+$/.test(version)) {
    return { ...empty, console: [`ignition[812]: failed to acquire config: unsupported config version ${JSON.stringify(version)}`, ...IGNITION_FAILED] };
  }
  const files = new Map<string, string>();
  for (const f of Array.isArray(obj(doc.storage).files) ? (obj(doc.storage).files as unknown[]) : []) {
    const path = str(obj(f).path);
    const contents = obj(obj(f).contents);
    const bytes = str(contents.source) !== undefined ? dataUrl(contents.source as string) : undefined;
    if (!path || !bytes) continue;
    files.set(path, (contents.compression === 'gzip' ? gunzipSync(bytes) : bytes).toString('utf8'));
  }
  const runs: string[] = [];
  for (const u of Array.isArray(obj(doc.systemd).units) ? (obj(doc.systemd).units as unknown[]) : []) {
    const unit = obj(u);
    if (unit.enabled !== true || typeof unit.contents !== 'string') continue;
    const exec = /^ExecStart=(\S+)/m.exec(unit.contents)?.[1];
    if (exec && files.has(exec)) runs.push(exec);
  }
  return { files, runs, hostname: files.get('/etc/hostname')?.trim() || undefined, console: ['ignition[812]: Ignition finished successfully'] };
}

/** The guest's reading of its user-data with the agent of its image. */
export function readGuest(userData: string | null, agent: GuestAgent): GuestRead {
  const text = userDataText(userData);
  return agent === 'ignition' ? readIgnition(text) : readCloudInit(text);
}
