// A node's files in cloud-init's #cloud-config (Ubuntu): write_files, the volumes partitioned,
// formatted and mounted in cloud-init's init stage (disk_setup, fs_setup, mounts; once: a rebooted
// node keeps its data), and runcmd running the bootstrap script in the final stage.

import { stringify } from 'yaml';
import type { NodeDisk } from './disks.js';
import type { NodeConfig } from './node-files.js';
import { BOOTSTRAP_SCRIPT_PATH } from './units.js';

function diskSetup(disks: NodeDisk[]): Record<string, unknown> {
  if (disks.length === 0) return {};
  return {
    disk_setup: Object.fromEntries(disks.map((d) => [d.device, { table_type: 'gpt', layout: true, overwrite: false }])),
    fs_setup: disks.map((d) => ({ label: d.label, filesystem: 'ext4', device: d.device, partition: 'auto', overwrite: false })),
    mounts: disks.map((d) => [`LABEL=${d.label}`, d.mountPoint, 'ext4', 'defaults,nofail,x-systemd.device-timeout=120', '0', '2']),
  };
}

export function renderCloudConfig(cfg: NodeConfig): string {
  const doc = {
    hostname: cfg.hostname,
    preserve_hostname: false,
    prefer_fqdn_over_hostname: false,
    ...diskSetup(cfg.disks),
    write_files: cfg.files.map((f) => ({ path: f.path, content: f.content, owner: 'root:root', permissions: f.permissions })),
    runcmd: [[BOOTSTRAP_SCRIPT_PATH]],
  };
  return `#cloud-config\n${stringify(doc, { lineWidth: 0 })}`;
}
