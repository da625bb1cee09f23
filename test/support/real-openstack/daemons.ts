// How an OpenStack service's processes are described: a WSGI app under uwsgi (tracked by its master, ready
// when its port answers) or a Python daemon (tracked by its parent process; checked through the APIs), and
// the configuration every one of them shares.
import { join } from 'node:path';
import { LOGGING } from './ini.js';
import { PYTHON, dirOf, rabbitUrl, url, type Layout } from './layout.js';
import { httpStatus } from './procs.js';
import type { CloudDaemon } from './services-infra.js';

export const answers = (target: string) => async () => {
  const s = await httpStatus(target);
  return s !== undefined && s < 500;
};

export function uwsgiDaemon(l: Layout, service: string, name: string, user: string, port: number, readyPath = '/', tier: 1 | 2 = 2): CloudDaemon {
  const dir = dirOf(l, service);
  return {
    name, dir, user,
    cmd: '/usr/bin/uwsgi',
    args: ['--ini', join(dir, `${name}-uwsgi.ini`)],
    mark: join(dir, `${name}-uwsgi.ini`),
    ready: answers(url(port, readyPath)),
    readyWithinMs: 120_000,
    tier,
  };
}

export function pythonDaemon(l: Layout, service: string, name: string, user: string, args: string[], env?: Record<string, string>): CloudDaemon {
  const dir = dirOf(l, service);
  return {
    name, dir, user, cmd: PYTHON, args, env,
    mark: dir,
    // These have no port: alive a few seconds after the start is all the harness waits for here; that they
    // are up is checked through the APIs (os-services) once those answer.
    ready: async () => true,
    readyWithinMs: 60_000,
    tier: 3,
  };
}

export const common = (l: Layout) => ({ ...LOGGING, transport_url: rabbitUrl(l.ports) });
export const noNotifications = { driver: 'noop' };
