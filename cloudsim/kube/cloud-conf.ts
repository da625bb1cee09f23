// What the in-cluster cloud provider reads, as it reads it: cloud.conf, the file of its --cloud-config
// flag from the Secret its pod mounted when it started (gcfg: [Section] key=value, values bare or double-quoted), OCCM's
// --cluster-name from its DaemonSet and Cinder CSI's --cluster from its controller Deployment. With
// the [Global] application credential it logs in to Keystone and reaches the services through the
// catalog, over HTTP like the real binaries: a credential that does not work stops them.
import { AppCredentialAuth } from '../../src/openstack/auth.js';
import { CinderClient } from '../../src/openstack/cinder.js';
import { NeutronClient } from '../../src/openstack/neutron.js';
import { OctaviaClient } from '../../src/openstack/octavia.js';
import type { Obj } from './store.js';

export type CloudConf = Record<string, Record<string, string>>;

/** gcfg as cloud-provider-openstack writes and reads it (sections and keys case-insensitive). */
export function parseCloudConf(text: string): CloudConf {
  const out: CloudConf = {};
  let section = '';
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const s = /^\[\s*([^\]\s]+)\s*\]$/.exec(line);
    if (s) {
      section = s[1]!.toLowerCase();
      out[section] ??= {};
      continue;
    }
    const kv = /^([\w-]+)\s*=\s*(.*)$/.exec(line);
    if (!kv || !section) continue;
    let v = kv[2]!.trim();
    if (v.startsWith('"') && v.endsWith('"') && v.length >= 2) v = v.slice(1, -1).replace(/\\(["\\])/g, '$1');
    out[section]![kv[1]!.toLowerCase()] = v;
  }
  return out;
}

/** A container argument `--<flag>=value` of a workload's pod template. */
export function argOf(workload: Obj | undefined, flag: string): string | undefined {
  const containers = (((workload?.spec as Record<string, unknown> | undefined)?.template as { spec?: { containers?: { args?: string[]; command?: string[] }[] } } | undefined)?.spec?.containers) ?? [];
  for (const c of containers) {
    for (const a of [...(c.command ?? []), ...(c.args ?? [])]) if (a.startsWith(`--${flag}=`)) return a.slice(flag.length + 3);
  }
  return undefined;
}

export interface CloudClients {
  octavia(): Promise<OctaviaClient>;
  neutron(): Promise<NeutronClient>;
  cinder(): Promise<CinderClient>;
}

/** One login per credential (a cluster whose Secret changes logs in again). */
const logins = new Map<string, AppCredentialAuth>();

/** Clients acting with the conf's application credential; undefined when it names none. */
export function cloudClients(conf: CloudConf): CloudClients | undefined {
  const g = conf.global ?? {};
  const id = g['application-credential-id'];
  const secret = g['application-credential-secret'];
  const authUrl = g['auth-url'];
  if (!id || !secret || !authUrl) return undefined;
  const key = `${authUrl}|${id}|${secret}`;
  let auth = logins.get(key);
  if (!auth) {
    auth = new AppCredentialAuth({ authUrl, id, secret, timeoutMs: 10_000, ...(g.region ? { region: g.region } : {}) });
    logins.set(key, auth);
    if (logins.size > 1000) logins.delete(logins.keys().next().value!);
  }
  const a = auth;
  return {
    octavia: async () => new OctaviaClient(await a.session('load-balancer')),
    neutron: async () => new NeutronClient(await a.session('network')),
    cinder: async () => new CinderClient(await a.session('block-storage')),
  };
}
