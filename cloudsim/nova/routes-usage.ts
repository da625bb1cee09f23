// Nova's os-simple-tenant-usage (Horizon's overview and usage pages read it): a project's usage over a
// period (GET /os-simple-tenant-usage/{project}, the owner or an admin) and every project's (GET
// /os-simple-tenant-usage, admins; `detailed=1` lists the servers too). As Zed computes it: the servers
// launched before the period's end and not terminated before its start (deleted ones too while their
// tombstone lasts), each charged the hours it ran within the period; from 2.40 paged by limit and marker.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SimError } from '../common/errors.js';
import type { SimCaller } from '../common/keystone-auth.js';
import { callerOf } from '../common/service-app.js';
import { atLeast, versionOf } from './microversion.js';
import type { Server } from './servers.js';
import type { NovaState } from './state.js';

type Query = { start?: string; end?: string; detailed?: string; limit?: string; marker?: string };

const denied = (rule: string) => new SimError(403, `Policy doesn't allow os_compute_api:os-simple-tenant-usage:${rule} to be performed.`);

/** Python's isoformat of a naive UTC datetime: microseconds only when there are some. */
const pyTime = (ms: number) => new Date(ms).toISOString().replace(/\.000Z$/, '').replace(/\.(\d{3})Z$/, '.$1000');

/** Nova's three accepted formats, naive times taken as UTC; absent: now. */
function parseTime(raw: string | undefined, now: number): number {
  if (!raw) return now;
  const m = /^(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d:\d\d)(\.\d{1,6})?$/.exec(raw);
  const t = m && (m[3] || raw.includes('T')) ? Date.parse(`${m[1]}T${m[2]}${m[3] ? m[3].slice(0, 4) : ''}Z`) : NaN;
  if (Number.isNaN(t)) throw new SimError(400, 'Datetime is in invalid format');
  return t;
}

function period(q: Query, now: number): { start: number; stop: number } {
  const start = parseTime(q.start, now);
  // Nova reads the clock again for a missing end: a moment later than a missing start.
  const stop = parseTime(q.end, now + 1);
  if (!(start < stop)) throw new SimError(400, 'Invalid start time. The start time cannot occur after the end time.');
  return { start, stop };
}

/** The hours a server ran within the period (0 before its launch). */
function hoursFor(s: Server, start: number, stop: number): number {
  if (s.terminatedAt !== null && s.terminatedAt < start) return 0;
  if (s.launchedAt === null || s.launchedAt > stop) return 0;
  const from = Math.max(s.launchedAt, start);
  const to = s.terminatedAt !== null ? Math.min(stop, s.terminatedAt) : stop;
  return (to - from) / 3_600_000;
}

export function registerUsageRoutes(scope: FastifyInstance, state: NovaState): void {
  /** The servers active in the period, oldest first (Nova's created_at, id order), from the marker on, at most `limit`. */
  function activeServers(projectId: string | null, start: number, stop: number, limit: number, marker: string | undefined): Server[] {
    const pool = projectId === null ? [...state.servers.values()] : state.servers.by('project', projectId);
    const active = pool
      .filter((s) => (s.terminatedAt === null || s.terminatedAt > start) && (s.launchedAt === null || s.launchedAt < stop))
      .sort((a, b) => a.createdAt - b.createdAt || a.seq - b.seq);
    let from = 0;
    if (marker !== undefined) {
      const at = active.findIndex((s) => s.id === marker);
      if (at < 0) throw new SimError(400, `Marker ${marker} could not be found.`);
      from = at + 1;
    }
    return active.slice(from, from + limit);
  }

  function usages(request: FastifyRequest, projectId: string | null, detailed: boolean) {
    const q = request.query as Query;
    const now = state.clock.now();
    const { start, stop: asked } = period(q, now);
    const stop = Math.min(asked, now);
    const paged = atLeast(versionOf(request), 40);
    const limit = paged && q.limit !== undefined ? Number(q.limit) : 1000;
    if (!Number.isInteger(limit) || limit < 0) throw new SimError(400, 'limit param must be an integer');
    const servers = activeServers(projectId, start, stop, limit, paged ? q.marker : undefined);
    const byProject = new Map<string, Record<string, unknown> & { server_usages?: unknown[]; total_hours: number; total_local_gb_usage: number; total_memory_mb_usage: number; total_vcpus_usage: number }>();
    for (const s of servers) {
      const hours = hoursFor(s, start, stop);
      const localGb = s.flavor.disk + s.flavor.ephemeral;
      const ended = s.terminatedAt;
      const launched = s.launchedAt ?? s.createdAt;
      const info = {
        hours,
        flavor: s.flavor.name,
        instance_id: s.id,
        name: s.name,
        tenant_id: s.projectId,
        memory_mb: s.flavor.ram,
        local_gb: localGb,
        vcpus: s.flavor.vcpus,
        started_at: s.launchedAt === null ? null : pyTime(s.launchedAt),
        ended_at: ended === null ? null : pyTime(ended),
        state: ended === null ? s.vmState : 'terminated',
        uptime: Math.floor(((ended ?? now) - launched) / 1000),
      };
      let sum = byProject.get(s.projectId);
      if (!sum) {
        sum = { tenant_id: s.projectId, ...(detailed ? { server_usages: [] } : {}), total_local_gb_usage: 0, total_vcpus_usage: 0, total_memory_mb_usage: 0, total_hours: 0, start: pyTime(start), stop: pyTime(stop) };
        byProject.set(s.projectId, sum);
      }
      sum.total_local_gb_usage += localGb * hours;
      sum.total_vcpus_usage += s.flavor.vcpus * hours;
      sum.total_memory_mb_usage += s.flavor.ram * hours;
      sum.total_hours += hours;
      sum.server_usages?.push(info);
    }
    const url = new URL(request.url, 'http://x');
    url.searchParams.set('marker', servers.at(-1)?.id ?? '');
    const links = paged && servers.length > 0 && servers.length === limit ? [{ rel: 'next', href: `${request.protocol}://${request.host}${url.pathname}?${url.searchParams}` }] : undefined;
    return { summaries: [...byProject.values()], links };
  }

  scope.get('/v2.1/os-simple-tenant-usage', async (request) => {
    if (!callerOf(request).isAdmin) throw denied('list');
    const { summaries, links } = usages(request, null, (request.query as Query).detailed === '1');
    return { tenant_usages: summaries, ...(links ? { tenant_usages_links: links } : {}) };
  });
  scope.get<{ Params: { id: string } }>('/v2.1/os-simple-tenant-usage/:id', async (request) => {
    const caller: SimCaller = callerOf(request);
    if (!caller.isAdmin && caller.projectId !== request.params.id) throw denied('show');
    const { summaries, links } = usages(request, request.params.id, true);
    return { tenant_usage: summaries[0] ?? {}, ...(links ? { tenant_usage_links: links } : {}) };
  });
}
