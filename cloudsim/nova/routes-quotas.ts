// /v2.1/os-quota-sets/{project} (show, /detail, /defaults; PUT and DELETE by admins) and
// /v2.1/limits (absolute limits with usage), each with the fields of the request's microversion.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SimError } from '../common/errors.js';
import { one, type RawQuery } from '../common/query.js';
import { callerOf } from '../common/service-app.js';
import { atLeast, versionOf } from './microversion.js';
import { quotaNames, type NovaQuota, type QuotaName } from './quota.js';
import type { NovaState } from './state.js';
import { bodyObject, checkBoolean, checkKeys, checkType, invalidInput, pyRepr } from './validate.js';

type Params = { project: string };

const denied = (rule: string) => new SimError(403, `Policy doesn't allow os_compute_api:${rule} to be performed.`);

/** Readers of a project's quota: its members and admins. */
function readable(request: FastifyRequest<{ Params: Params }>): string {
  const caller = callerOf(request);
  if (!caller.isAdmin && request.params.project !== caller.projectId) throw denied('os-quota-sets:show');
  return request.params.project;
}

const pick = (q: NovaQuota, names: QuotaName[]) => Object.fromEntries(names.map((n) => [n, q[n]]));

function limitValue(key: string, raw: unknown): number {
  checkType(key, raw, 'integer', 'string');
  if (!/^-?\d+$/.test(String(raw))) throw invalidInput(key, raw, `${pyRepr(raw)} does not match '^-?[0-9]+$'`);
  const n = Number(raw);
  if (n < -1) throw invalidInput(key, raw, `${pyRepr(raw)} is less than the minimum of -1`);
  if (n > 2147483647) throw invalidInput(key, raw, `${pyRepr(raw)} is greater than the maximum of 2147483647`);
  return n;
}

export function registerQuotaRoutes(scope: FastifyInstance, state: NovaState): void {
  const usageOf = (project: string): Partial<Record<QuotaName, number>> => {
    const u = state.usage(project);
    return { instances: u.instances, cores: u.cores, ram: u.ram, server_groups: u.server_groups };
  };

  scope.get<{ Params: Params }>('/v2.1/os-quota-sets/:project', async (request) => {
    const project = readable(request);
    return { quota_set: { id: project, ...pick(state.quotaOf(project), quotaNames(versionOf(request))) } };
  });

  scope.get<{ Params: Params }>('/v2.1/os-quota-sets/:project/defaults', async (request) => {
    const project = readable(request);
    return { quota_set: { id: project, ...pick(state.defaultQuota, quotaNames(versionOf(request))) } };
  });

  scope.get<{ Params: Params }>('/v2.1/os-quota-sets/:project/detail', async (request) => {
    const project = readable(request);
    const limits = state.quotaOf(project);
    const used = usageOf(project);
    const detail = Object.fromEntries(quotaNames(versionOf(request)).map((n) => [n, { in_use: used[n] ?? 0, limit: limits[n], reserved: 0 }]));
    return { quota_set: { id: project, ...detail } };
  });

  scope.put<{ Params: Params }>('/v2.1/os-quota-sets/:project', async (request) => {
    if (!callerOf(request).isAdmin) throw denied('os-quota-sets:update');
    const names = quotaNames(versionOf(request));
    const body = bodyObject(request.body);
    checkKeys(undefined, body, ['quota_set'], ['quota_set']);
    checkType('quota_set', body.quota_set, 'object');
    const asked = body.quota_set as Record<string, unknown>;
    checkKeys('quota_set', asked, [...names, 'force']);
    const force = asked.force === undefined ? false : checkBoolean('force', asked.force);
    const project = request.params.project;
    const used = usageOf(project);
    const update: Partial<NovaQuota> = {};
    for (const n of names) {
      if (asked[n] === undefined) continue;
      const limit = limitValue(n, asked[n]);
      const inUse = used[n] ?? 0;
      if (!force && limit >= 0 && limit < inUse) {
        throw new SimError(400, `Quota limit ${limit} for ${n} must be greater than or equal to already used and reserved ${inUse}.`);
      }
      update[n] = limit;
    }
    state.setQuota(project, update);
    return { quota_set: pick(state.quotaOf(project), names) };
  });

  scope.delete<{ Params: Params }>('/v2.1/os-quota-sets/:project', async (request, reply) => {
    if (!callerOf(request).isAdmin) throw denied('os-quota-sets:delete');
    state.quotas.delete(request.params.project);
    return reply.code(202).send();
  });

  scope.get('/v2.1/limits', async (request) => {
    const caller = callerOf(request);
    const v = versionOf(request);
    const asked = one(request.query as RawQuery, 'tenant_id');
    if (asked !== undefined && asked !== caller.projectId && !caller.isAdmin) throw denied('limits:other_project');
    const project = asked ?? caller.projectId;
    const q = state.quotaOf(project);
    const u = state.usage(project);
    const absolute: Record<string, number> = {
      maxServerMeta: q.metadata_items,
      maxTotalKeypairs: q.key_pairs,
      maxServerGroups: q.server_groups,
      maxServerGroupMembers: q.server_group_members,
      maxTotalCores: q.cores,
      maxTotalInstances: q.instances,
      maxTotalRAMSize: q.ram,
      totalCoresUsed: u.cores,
      totalInstancesUsed: u.instances,
      totalRAMUsed: u.ram,
      totalServerGroupsUsed: u.server_groups,
    };
    if (!atLeast(v, 36)) {
      Object.assign(absolute, {
        maxSecurityGroups: q.security_groups,
        maxSecurityGroupRules: q.security_group_rules,
        maxTotalFloatingIps: q.floating_ips,
        totalSecurityGroupsUsed: 0,
        totalFloatingIpsUsed: 0,
      });
    }
    if (!atLeast(v, 39)) absolute.maxImageMeta = q.metadata_items;
    if (!atLeast(v, 57)) Object.assign(absolute, { maxPersonality: q.injected_files, maxPersonalitySize: q.injected_file_content_bytes });
    return { limits: { rate: [], absolute } };
  });
}
