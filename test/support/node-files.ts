// Test-side readers of the two user-data formats (independent of the simulator's): the files a
// #cloud-config writes and the files an Ignition config writes, by path.
import { gunzipSync } from 'node:zlib';
import { parse, parseAllDocuments } from 'yaml';

export type Files = Map<string, { content: string; mode: number }>;

export function cloudConfigFiles(text: string): Files {
  const doc = parse(text) as { write_files: { path: string; content: string; permissions: string }[] };
  return new Map(doc.write_files.map((f) => [f.path, { content: f.content, mode: Number.parseInt(f.permissions, 8) }]));
}

export interface IgnitionConfig {
  ignition: { version: string };
  storage: { files: { path: string; mode: number; overwrite: boolean; contents: { source: string; compression?: string } }[]; filesystems?: { device: string; format: string; label: string; wipeFilesystem: boolean }[] };
  systemd: { units: { name: string; enabled: boolean; contents: string }[] };
}

/** A data URL's text, the way Ignition decodes it (RFC 2397 percent-encoding or base64, then gzip when said). */
export function dataUrlText(source: string, compression?: string): string {
  const m = /^data:([^,]*),(.*)$/s.exec(source);
  if (!m) throw new Error(`not a data URL: ${source.slice(0, 40)}`);
  const bytes = m[1]!.split(';').includes('base64') ? Buffer.from(m[2]!, 'base64') : Buffer.from(decodeURIComponent(m[2]!), 'utf8');
  return (compression === 'gzip' ? gunzipSync(bytes) : bytes).toString('utf8');
}

export function ignitionFiles(text: string): Files {
  const cfg = JSON.parse(text) as IgnitionConfig;
  return new Map(cfg.storage.files.map((f) => [f.path, { content: dataUrlText(f.contents.source, f.contents.compression), mode: f.mode }]));
}

/** The bootstrap script of either format. */
export function bootstrapScriptOf(text: string): string {
  const files = text.startsWith('#cloud-config') ? cloudConfigFiles(text) : ignitionFiles(text);
  return files.get('/usr/local/bin/magnum-bootstrap')!.content;
}

/** A #cloud-config as the tests read it: its hostname, files and commands. */
export type CloudConfig = { hostname: string; write_files: { path: string; content: string; permissions: string }[]; runcmd: string[][] };

export const cloudConfigOf = (text: string): CloudConfig => parse(text) as CloudConfig;
export const fileOf = (cc: CloudConfig, path: string) => cc.write_files.find((f) => f.path === path);
/** The kubeadm documents a node's config file holds, in order. */
export const kubeadmDocs = (cc: CloudConfig) =>
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  parseAllDocuments(fileOf(cc, '/etc/kubernetes/kubeadm/config.yaml')!.content).map((d) => d.toJS() as Record<string, any>);
