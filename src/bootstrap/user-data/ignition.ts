// A node's files as an Ignition config (spec 3.3.0, Fedora CoreOS; the newest Debian's ignition-validate checks): the same files (data URLs, gzip
// when that is shorter), the volumes formatted once and mounted by systemd units, and the bootstrap
// as a unit that runs once the network is online. Fedora CoreOS specifics: the hostname file,
// Zincati's automatic updates off (nodes are replaced by upgrades, not rebooted into a new OS at
// random) and SELinux permissive for kubeadm.

import { gzipSync } from 'node:zlib';
import type { NodeConfig, NodeFile } from './node-files.js';
import { bootstrapUnit, BOOTSTRAP_UNIT, mountUnit } from './units.js';

export const IGNITION_VERSION = '3.3.0';

/** Printable ASCII a data URL's data may hold as it is (Ignition's dataurl lexer; '%' starts an escape). */
const PLAIN = /^[!$&'()*+,\-./0-9:;=?@A-Z_a-z~]$/;

/** RFC 2397 percent-encoding of UTF-8 text. */
export function percentEncode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += byte < 0x80 && PLAIN.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** The shorter of a plain data URL and a gzip one (Ignition decompresses the latter). */
export function contents(text: string): { source: string; compression?: string } {
  const plain = `data:,${percentEncode(text)}`;
  const gz = `data:;base64,${gzipSync(Buffer.from(text, 'utf8'), { level: 9 }).toString('base64')}`;
  return gz.length < plain.length ? { source: gz, compression: 'gzip' } : { source: plain };
}

const file = (f: NodeFile) => ({ path: f.path, mode: Number.parseInt(f.permissions, 8), overwrite: true, contents: contents(f.content) });

/** Fedora CoreOS' own files: the hostname, Zincati off, SELinux permissive. */
function osFiles(cfg: NodeConfig): NodeFile[] {
  return [
    { path: '/etc/hostname', content: `${cfg.hostname}\n`, permissions: '0644' },
    { path: '/etc/zincati/config.d/90-magnum-no-auto-updates.toml', content: '# nodes are replaced by cluster upgrades, not rebooted into a new OS\n[updates]\nenabled = false\n', permissions: '0644' },
    { path: '/etc/selinux/config', content: 'SELINUX=permissive\nSELINUXTYPE=targeted\n', permissions: '0644' },
  ];
}

export function renderIgnition(cfg: NodeConfig): string {
  const config = {
    ignition: { version: IGNITION_VERSION },
    storage: {
      files: [...osFiles(cfg), ...cfg.files].map(file),
      ...(cfg.disks.length > 0 ? { filesystems: cfg.disks.map((d) => ({ device: d.device, format: 'ext4', label: d.label, wipeFilesystem: false })) } : {}),
    },
    systemd: {
      units: [
        ...cfg.disks.map((d) => ({ ...mountUnit(d), enabled: true })),
        { name: BOOTSTRAP_UNIT, enabled: true, contents: bootstrapUnit() },
      ],
    },
  };
  return JSON.stringify(config);
}
