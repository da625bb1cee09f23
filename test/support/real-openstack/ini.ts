// oslo.config INI files and the sections every service shares: how a service authenticates to Keystone
// (keystonemiddleware with service tokens required, and its own service user for calls to other services) and
// how uwsgi serves an API on loopback.
import { HOST, REGION, servicePassword, url, type Ports } from './layout.js';

export type Section = Record<string, string | number | boolean | undefined>;
export type Ini = Record<string, Section>;

export function renderIni(ini: Ini): string {
  const out: string[] = [];
  for (const [name, section] of Object.entries(ini)) {
    out.push(`[${name}]`);
    for (const [k, v] of Object.entries(section)) if (v !== undefined) out.push(`${k} = ${v}`);
    out.push('');
  }
  return out.join('\n');
}

/** A password login as `user` of project `service` (the options of keystoneauth's password plugin). */
export function serviceAuth(p: Ports, user: string): Section {
  return {
    auth_url: url(p.keystone, '/v3'),
    auth_type: 'password',
    project_domain_name: 'Default',
    user_domain_name: 'Default',
    project_name: 'service',
    username: user,
    password: servicePassword(user),
    region_name: REGION,
  };
}

/**
 * keystonemiddleware: tokens validated by Keystone; a service token (X-Service-Token) is honoured only with the
 * `service` role, as clouds do since OSSA-2023-003.
 */
export function authtoken(p: Ports, user: string): Section {
  return {
    www_authenticate_uri: url(p.keystone, '/v3'),
    service_token_roles_required: true,
    service_token_roles: 'service',
    ...serviceAuth(p, user),
  };
}

/** What every daemon logs: to stderr (its log file), without colour codes, at INFO. */
export const LOGGING: Section = { use_stderr: true, debug: false, log_color: false };

/**
 * uwsgi serving one WSGI script on loopback. It is started as the service's user (no uid/gid here), in the
 * foreground, its master the process the harness tracks. The plain http-socket closes the connection after
 * each response, so the response says so (keep-alive clients would race the close).
 */
export function uwsgiIni(o: {
  port: number;
  script: string;
  dir: string;
  processes: number;
  env?: Record<string, string>;
  pyargv?: string;
  /** Load the app once in the master and fork it (Keystone opens nothing while loading); else in each worker. */
  preload?: boolean;
}): string {
  const lines = [
    '[uwsgi]',
    'plugins = python3',
    'master = true',
    `http-socket = ${HOST}:${o.port}`,
    `wsgi-file = ${o.script}`,
    ...(o.pyargv ? [`pyargv = ${o.pyargv}`] : []),
    `processes = ${o.processes}`,
    'threads = 1',
    'enable-threads = true',
    // Unless preloaded, each worker loads the app itself: several of these apps open connections and start
    // threads while loading, which a fork would share.
    `lazy-apps = ${o.preload ? 'false' : 'true'}`,
    'need-app = true',
    `chdir = ${o.dir}`,
    'buffer-size = 65535',
    'add-header = Connection: close',
    'http-auto-chunked = true',
    'http-chunked-input = true',
    'http-raw-body = true',
    'wsgi-manage-chunked-input = true',
    'no-orphans = true',
    'die-on-term = true',
    // Python's interpreter teardown can crash in greenlet on worker exit; there is nothing to flush.
    'skip-atexit-teardown = true',
    ...Object.entries(o.env ?? {}).map(([k, v]) => `env = ${k}=${v}`),
    '',
  ];
  return lines.join('\n');
}
