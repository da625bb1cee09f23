// /v2/lbaas/pools/{pool_id}/members: add, show, list, update, delete, and the batch replace of a
// pool's members (PUT of the list: new ones added, missing ones removed, the others updated).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SimError } from '../common/errors.js';
import { callerOf } from '../common/service-app.js';
import { buildMember } from './builders.js';
import { listOf } from './list.js';
import { find, lbOf, type P } from './lookup.js';
import { renderMember } from './render.js';
import type { Member, OctaviaState, Pool } from './state.js';
import { bool, int, list, str, tags, wrapped, type Body } from './validate.js';

export function registerMemberRoutes(scope: FastifyInstance, s: OctaviaState, root: string): void {
  const pPath = `${root}/pools`;
  const mPath = `${pPath}/:pool_id/members`;
  const memberPath = (poolId: string) => `${pPath}/${poolId}/members`;
  scope.get<P<'pool_id'>>(mPath, async (req) => {
    const pool = find<Pool>(s, 'pool', req.params.pool_id, callerOf(req));
    return listOf(s, req, { collection: 'members', path: memberPath(pool.id), table: s.members, within: s.membersOf(pool.id), render: (o) => renderMember(s, o as Member) });
  });
  scope.post<P<'pool_id'>>(mPath, async (req, reply) => {
    const pool = find<Pool>(s, 'pool', req.params.pool_id, callerOf(req));
    const b = wrapped(req.body, 'member');
    const m = buildMember(s, pool, b, []);
    s.checkQuota(pool.project_id, { member: 1 });
    const lb = lbOf(s, pool);
    s.lockPool(lb, pool);
    s.members.set(m.id, m);
    s.childChanged(lb);
    return reply.code(201).send({ member: renderMember(s, m) });
  });
  scope.put<P<'pool_id'>>(mPath, async (req, reply) => {
    const pool = find<Pool>(s, 'pool', req.params.pool_id, callerOf(req));
    const bodies = list((req.body ?? {}) as Body, 'members');
    if (!req.body || !Array.isArray((req.body as Body).members)) throw new SimError(400, "Invalid input for field/attribute members. Value: 'None'. Mandatory field missing.");
    const existing = s.membersOf(pool.id);
    const key = (a: unknown, p: unknown) => `${String(a)}:${String(p)}`;
    const fresh: Member[] = [];
    const updates: [Member, Body][] = [];
    const wanted = new Set<string>();
    for (const b of bodies) {
      const k = key(b.address, b.protocol_port);
      if (wanted.has(k)) throw new SimError(400, `Validation failure: Duplicate address/port in the member list: ${k}`);
      wanted.add(k);
      const old = existing.find((m) => key(m.address, m.protocol_port) === k);
      if (old) updates.push([old, b]);
      else fresh.push(buildMember(s, pool, b, fresh));
    }
    const gone = existing.filter((m) => !wanted.has(key(m.address, m.protocol_port)));
    s.checkQuota(pool.project_id, { member: Math.max(0, fresh.length - gone.length) });
    const lb = lbOf(s, pool);
    s.lockPool(lb, pool);
    for (const m of fresh) s.members.set(m.id, m);
    for (const [m, b] of updates) {
      const w = int(b, 'weight', 0, 256);
      if (w !== undefined) m.weight = w;
      const n = str(b, 'name');
      if (n !== undefined) m.name = n;
      const up = bool(b, 'admin_state_up');
      if (up !== undefined) m.admin_state_up = up;
      const t = tags(b);
      if (t !== undefined) m.tags = t;
      m.provisioning_status = 'PENDING_UPDATE';
      s.touch(m);
      s.refile(m);
    }
    for (const m of gone) m.provisioning_status = 'PENDING_DELETE';
    s.childChanged(lb);
    return reply.code(202).send();
  });
  const findMember = (req: FastifyRequest<P<'pool_id' | 'id'>>) => {
    const caller = callerOf(req);
    const pool = find<Pool>(s, 'pool', req.params.pool_id, caller);
    const m = s.members.get(req.params.id);
    if (!m || m.pool_id !== pool.id) throw new SimError(404, `Member ${req.params.id} not found.`);
    return { pool, m };
  };
  scope.get<P<'pool_id' | 'id'>>(`${mPath}/:id`, async (req) => ({ member: renderMember(s, findMember(req).m) }));
  scope.put<P<'pool_id' | 'id'>>(`${mPath}/:id`, async (req) => {
    const { pool, m } = findMember(req);
    const b = wrapped(req.body, 'member');
    const patch: Partial<Member> = {};
    const w = int(b, 'weight', 0, 256);
    if (w !== undefined) patch.weight = w;
    const n = str(b, 'name');
    if (n !== undefined) patch.name = n;
    const up = bool(b, 'admin_state_up');
    if (up !== undefined) patch.admin_state_up = up;
    const backup = bool(b, 'backup');
    if (backup !== undefined) patch.backup = backup;
    const t = tags(b);
    if (t !== undefined) patch.tags = t;
    const lb = lbOf(s, pool);
    s.lockPool(lb, pool);
    Object.assign(m, patch, { provisioning_status: 'PENDING_UPDATE' });
    s.touch(m);
    s.refile(m);
    s.childChanged(lb);
    return { member: renderMember(s, m) };
  });
  scope.delete<P<'pool_id' | 'id'>>(`${mPath}/:id`, async (req, reply) => {
    const { pool, m } = findMember(req);
    const lb = lbOf(s, pool);
    s.lockPool(lb, pool);
    m.provisioning_status = 'PENDING_DELETE';
    s.childChanged(lb);
    return reply.code(204).send();
  });
}
