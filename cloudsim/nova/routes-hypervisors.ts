// The hypervisors API, admin only as Nova's policy has it (os_compute_api:os-hypervisors:*; a member gets
// 403, not 404): GET /os-hypervisors[/detail] (limit/marker from 2.33; hypervisor_hostname_pattern and
// with_servers from 2.53, when ids become UUIDs), /os-hypervisors/{id}, its uptime (until 2.87; from
// 2.88 `uptime` is in the detail and the usage figures are gone), the statistics (until 2.87) and the
// older search and servers routes (until 2.52). One hypervisor per simulated host (hosts.ts).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SimError } from '../common/errors.js';
import { one, type RawQuery } from '../common/query.js';
import { callerOf, hostUrl } from '../common/service-app.js';
import { computeNodes, HYPERVISOR, type HostFacts } from './hosts.js';
import { atLeast, versionOf } from './microversion.js';
import type { NovaState } from './state.js';

type Req = FastifyRequest<{ Params: { id: string } }>;

const CPU_INFO = {
  arch: 'x86_64',
  model: 'Cascadelake-Server',
  vendor: 'Intel',
  topology: { cells: 1, sockets: 1, cores: 32, threads: 2 },
  features: ['avx2', 'avx512f', 'aes', 'pcid', 'ssse3', 'vmx'],
};

function allowed(request: FastifyRequest, rule: string): void {
  if (!callerOf(request).isAdmin) throw new SimError(403, `Policy doesn't allow os_compute_api:os-hypervisors:${rule} to be performed.`);
}

const notFound = (id: string) => new SimError(404, `Hypervisor with ID '${id}' could not be found.`);

/** `up` time as `uptime(1)` prints it, from the simulator's start. */
function uptime(state: NovaState, since: number): string {
  const now = new Date(state.clock.now());
  const minutes = Math.max(0, Math.floor((state.clock.now() - since) / 60_000));
  const up = `${Math.floor(minutes / 1440)} days, ${Math.floor((minutes % 1440) / 60)}:${String(minutes % 60).padStart(2, '0')}`;
  return ` ${now.toISOString().slice(11, 19)} up ${up},  1 user,  load average: 0.25, 0.20, 0.18`;
}

export function registerHypervisorRoutes(scope: FastifyInstance, state: NovaState): void {
  const since = state.clock.now();
  const nodes = () => computeNodes(state.behaviour.zones, state.servers.values());
  const idOf = (request: FastifyRequest, n: HostFacts) => (atLeast(versionOf(request), 53) ? n.uuid : n.index);

  function render(request: FastifyRequest, n: HostFacts, detail: boolean, withServers: boolean): Record<string, unknown> {
    const v = versionOf(request);
    const body: Record<string, unknown> = { id: idOf(request, n), hypervisor_hostname: n.hypervisorHostname, state: 'up', status: 'enabled' };
    if (detail) {
      Object.assign(body, {
        hypervisor_type: HYPERVISOR.type,
        hypervisor_version: HYPERVISOR.version,
        host_ip: n.hostIp,
        service: { id: atLeast(v, 53) ? n.serviceUuid : n.index, host: n.host, disabled_reason: null },
      });
      if (atLeast(v, 88)) body.uptime = uptime(state, since);
      else {
        Object.assign(body, {
          vcpus: HYPERVISOR.vcpus,
          memory_mb: HYPERVISOR.memoryMb,
          local_gb: HYPERVISOR.localGb,
          vcpus_used: n.vcpusUsed,
          memory_mb_used: n.memoryMbUsed,
          local_gb_used: n.localGbUsed,
          free_ram_mb: HYPERVISOR.memoryMb - n.memoryMbUsed,
          free_disk_gb: HYPERVISOR.localGb - n.localGbUsed,
          current_workload: 0,
          running_vms: n.runningVms,
          disk_available_least: HYPERVISOR.localGb - n.localGbUsed,
          cpu_info: atLeast(v, 28) ? CPU_INFO : JSON.stringify(CPU_INFO),
        });
      }
    }
    if (n.servers.length > 0 && withServers) body.servers = n.servers.map((s) => ({ name: `instance-${s.seq.toString(16).padStart(8, '0')}`, uuid: s.id }));
    else if (withServers && atLeast(v, 75)) body.servers = [];
    return body;
  }

  /** The node an id names at this version (an integer before 2.53, a UUID from it). */
  function nodeOf(request: Req): HostFacts {
    const id = request.params.id;
    const uuids = atLeast(versionOf(request), 53);
    if (uuids && !/^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(id)) throw new SimError(400, `Invalid uuid ${id}`);
    const found = nodes().find((n) => (uuids ? n.uuid === id.toLowerCase() : /^\d+$/.test(id) && n.index === Number(id)));
    if (!found) throw notFound(id);
    return found;
  }

  function list(request: FastifyRequest, detail: boolean) {
    allowed(request, detail ? 'list-detail' : 'list');
    const v = versionOf(request);
    const q = request.query as RawQuery;
    const flag = (key: string) => {
      const raw = one(q, key);
      if (raw === undefined) return false;
      if (/^(1|t|true|on|y|yes)$/i.test(raw)) return true;
      if (/^(0|f|false|off|n|no)$/i.test(raw)) return false;
      throw new SimError(400, `Invalid input for query parameters ${key}. Value: ${raw}. '${raw}' is not one of ['true', 'True', 'TRUE', 'false', ...]`);
    };
    const pattern = atLeast(v, 53) ? one(q, 'hypervisor_hostname_pattern') : undefined;
    const withServers = atLeast(v, 53) && flag('with_servers');
    let found = nodes();
    if (pattern !== undefined) {
      if (one(q, 'limit') !== undefined || one(q, 'marker') !== undefined) {
        throw new SimError(400, 'Paging over hypervisors with the hypervisor_hostname_pattern query parameter is not supported.');
      }
      found = found.filter((n) => n.hypervisorHostname.includes(pattern));
      if (found.length === 0) throw new SimError(404, `No hypervisor matching '${pattern}' could be found.`);
      return { hypervisors: found.map((n) => render(request, n, detail, withServers)) };
    }
    if (!atLeast(v, 33)) return { hypervisors: found.map((n) => render(request, n, detail, withServers)) };
    const marker = one(q, 'marker');
    if (marker !== undefined) {
      const at = found.findIndex((n) => String(idOf(request, n)) === marker);
      if (at < 0) throw new SimError(400, `marker [${marker}] not found`);
      found = found.slice(at + 1);
    }
    const rawLimit = one(q, 'limit');
    if (rawLimit !== undefined && !/^\d+$/.test(rawLimit)) throw new SimError(400, 'limit param must be an integer');
    const limit = Math.min(rawLimit === undefined ? state.maxLimit : Number(rawLimit), state.maxLimit);
    const page = found.slice(0, limit);
    const body: Record<string, unknown> = { hypervisors: page.map((n) => render(request, n, detail, withServers)) };
    if (limit > 0 && page.length === limit) {
      const params = new URLSearchParams({ ...(rawLimit !== undefined ? { limit: rawLimit } : {}), marker: String(idOf(request, page[page.length - 1]!)) });
      body.hypervisors_links = [{ rel: 'next', href: `${hostUrl(request)}/v2.1/os-hypervisors${detail ? '/detail' : ''}?${params.toString()}` }];
    }
    return body;
  }

  const until = (request: FastifyRequest, minor: number) => {
    if (atLeast(versionOf(request), minor + 1)) throw new SimError(404, 'The resource could not be found.');
  };

  scope.get('/v2.1/os-hypervisors', async (request) => list(request, false));
  scope.get('/v2.1/os-hypervisors/detail', async (request) => list(request, true));
  scope.get('/v2.1/os-hypervisors/statistics', async (request) => {
    until(request, 87);
    allowed(request, 'statistics');
    const all = nodes();
    const sum = (f: (n: HostFacts) => number) => all.reduce((t, n) => t + f(n), 0);
    const count = all.length;
    return {
      hypervisor_statistics: {
        count,
        vcpus: count * HYPERVISOR.vcpus,
        memory_mb: count * HYPERVISOR.memoryMb,
        local_gb: count * HYPERVISOR.localGb,
        vcpus_used: sum((n) => n.vcpusUsed),
        memory_mb_used: sum((n) => n.memoryMbUsed),
        local_gb_used: sum((n) => n.localGbUsed),
        free_ram_mb: count * HYPERVISOR.memoryMb - sum((n) => n.memoryMbUsed),
        free_disk_gb: count * HYPERVISOR.localGb - sum((n) => n.localGbUsed),
        current_workload: 0,
        running_vms: sum((n) => n.runningVms),
        disk_available_least: count * HYPERVISOR.localGb - sum((n) => n.localGbUsed),
      },
    };
  });
  scope.get('/v2.1/os-hypervisors/:id', async (request: Req) => {
    allowed(request, 'show');
    const withServers = atLeast(versionOf(request), 53) && /^(1|t|true|on|y|yes)$/i.test(one(request.query as RawQuery, 'with_servers') ?? '');
    return { hypervisor: render(request, nodeOf(request), true, withServers) };
  });
  scope.get('/v2.1/os-hypervisors/:id/uptime', async (request: Req) => {
    until(request, 87);
    allowed(request, 'uptime');
    return { hypervisor: { ...render(request, nodeOf(request), false, false), uptime: uptime(state, since) } };
  });
  // Until 2.52: search by a part of the hypervisor name, with or without the servers on them.
  for (const [suffix, rule, servers] of [['search', 'search', false], ['servers', 'servers', true]] as const) {
    scope.get(`/v2.1/os-hypervisors/:id/${suffix}`, async (request: Req) => {
      until(request, 52);
      allowed(request, rule);
      const found = nodes().filter((n) => n.hypervisorHostname.includes(request.params.id));
      if (found.length === 0) throw new SimError(404, `No hypervisor matching '${request.params.id}' could be found.`);
      return { hypervisors: found.map((n) => render(request, n, false, servers)) };
    });
  }
}
