// /v2.1/os-keypairs (spec openstack-apis §2.7): per user; create imports a public key or (before
// 2.92) generates one and returns its private half once; 200/202 at 2.1, 201/204 from 2.2; the
// list is double-nested and pages by name from 2.35; admins reach other users' keys from 2.10.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SimError } from '../common/errors.js';
import { one, withParams, type RawQuery } from '../common/query.js';
import { callerOf, hostUrl } from '../common/service-app.js';
import { generateSshKey, sshFingerprint, validKeypairName, x509Fingerprint, type Keypair } from './keypairs.js';
import { atLeast, versionOf } from './microversion.js';
import { checkKeypairQuota } from './quota.js';
import { isoMicro } from './render-server.js';
import type { NovaState } from './state.js';
import { bodyObject, checkKeys, checkName, checkType, invalidInput, pyRepr } from './validate.js';

/** The user whose keys a call touches: the caller, or (admin, ≥2.10) ?user_id=. */
function userFor(request: FastifyRequest, asked: unknown): string {
  const caller = callerOf(request);
  if (asked === undefined || !atLeast(versionOf(request), 10)) return caller.userId;
  if (typeof asked !== 'string') throw invalidInput('user_id', asked, `${pyRepr(asked)} is not of type 'string'`);
  if (asked !== caller.userId && !caller.isAdmin) throw new SimError(403, "Policy doesn't allow os_compute_api:os-keypairs:index to be performed.");
  return asked;
}

const notFound = (name: string, userId: string) => new SimError(404, `Keypair ${name} not found for user ${userId}`);

export function registerKeypairRoutes(scope: FastifyInstance, state: NovaState): void {
  const find = (request: FastifyRequest<{ Params: { name: string } }>): Keypair => {
    const userId = userFor(request, (request.query as RawQuery).user_id);
    const k = state.keypairs.get(`${userId}/${request.params.name}`);
    if (!k) throw notFound(request.params.name, userId);
    return k;
  };

  scope.post('/v2.1/os-keypairs', async (request, reply) => {
    const v = versionOf(request);
    const caller = callerOf(request);
    const body = bodyObject(request.body);
    checkKeys(undefined, body, ['keypair'], ['keypair']);
    checkType('keypair', body.keypair, 'object');
    const kp = body.keypair as Record<string, unknown>;
    const allowed = ['name', 'public_key', ...(atLeast(v, 2) ? ['type'] : []), ...(atLeast(v, 10) ? ['user_id'] : [])];
    checkKeys('keypair', kp, allowed, atLeast(v, 92) ? ['name', 'public_key'] : ['name']);
    const name = checkName('name', kp.name);
    if (!validKeypairName(name, atLeast(v, 92))) throw invalidInput('name', name, `${pyRepr(name)} is not a '${atLeast(v, 92) ? 'keypair_name_292' : 'keypair_name_20'}'`);
    const type = (kp.type ?? 'ssh') as string;
    if (type !== 'ssh' && type !== 'x509') throw invalidInput('type', type, `${pyRepr(type)} is not one of ['ssh', 'x509']`);
    const userId = userFor(request, kp.user_id);
    if (kp.public_key !== undefined) checkType('public_key', kp.public_key, 'string');
    checkKeypairQuota(state.quotaOf(caller.projectId), state.keypairsOf(userId).length);
    if (state.keypairs.has(`${userId}/${name}`)) throw new SimError(409, `Key pair '${name}' already exists.`);
    let publicKey = kp.public_key as string | undefined;
    let privateKey: string | undefined;
    let fingerprint: string;
    if (publicKey !== undefined) fingerprint = type === 'x509' ? x509Fingerprint(publicKey) : sshFingerprint(publicKey);
    else if (type === 'x509') throw new SimError(400, 'Keypair data is invalid: the simulator cannot generate x509 keypairs; import a certificate');
    else ({ publicKey, privateKey, fingerprint } = generateSshKey());
    const keypair: Keypair = { id: state.nextSeq(), name, userId, projectId: caller.projectId, type, publicKey, fingerprint, createdAt: state.clock.now() };
    state.keypairs.set(`${userId}/${name}`, keypair);
    const out: Record<string, unknown> = { name, public_key: publicKey, fingerprint, user_id: userId };
    if (atLeast(v, 2)) out.type = type;
    if (privateKey !== undefined) out.private_key = privateKey;
    return reply.code(atLeast(v, 2) ? 201 : 200).send({ keypair: out });
  });

  scope.get('/v2.1/os-keypairs', async (request) => {
    const v = versionOf(request);
    const q = request.query as RawQuery;
    const userId = userFor(request, one(q, 'user_id'));
    let keys = state.keypairsOf(userId);
    const body: Record<string, unknown> = {};
    if (atLeast(v, 35)) {
      const rawLimit = one(q, 'limit');
      if (rawLimit !== undefined && !/^\d+$/.test(rawLimit)) throw invalidInput('limit', rawLimit, `${pyRepr(rawLimit)} does not match '^[0-9]*$'`);
      const marker = one(q, 'marker');
      if (marker !== undefined) {
        if (!state.keypairs.has(`${userId}/${marker}`)) throw new SimError(400, `marker [${marker}] not found`);
        keys = keys.filter((k) => k.name > marker);
      }
      const limit = Math.min(rawLimit === undefined ? state.maxLimit : Number(rawLimit), state.maxLimit);
      keys = keys.slice(0, limit);
      if (limit > 0 && keys.length === limit) {
        body.keypairs_links = [{ rel: 'next', href: `${hostUrl(request)}/v2.1/os-keypairs?${withParams(q, { marker: keys[keys.length - 1]!.name }).toString()}` }];
      }
    }
    body.keypairs = keys.map((k) => ({
      keypair: { name: k.name, public_key: k.publicKey, fingerprint: k.fingerprint, ...(atLeast(v, 2) ? { type: k.type } : {}) },
    }));
    return body;
  });

  scope.get<{ Params: { name: string } }>('/v2.1/os-keypairs/:name', async (request) => {
    const k = find(request);
    const out: Record<string, unknown> = {
      name: k.name,
      public_key: k.publicKey,
      fingerprint: k.fingerprint,
      user_id: k.userId,
      created_at: isoMicro(k.createdAt),
      deleted: false,
      deleted_at: null,
      updated_at: null,
      id: k.id,
    };
    if (atLeast(versionOf(request), 2)) out.type = k.type;
    return { keypair: out };
  });

  scope.delete<{ Params: { name: string } }>('/v2.1/os-keypairs/:name', async (request, reply) => {
    const k = find(request);
    state.keypairs.delete(`${k.userId}/${k.name}`);
    return reply.code(atLeast(versionOf(request), 2) ? 204 : 202).send();
  });
}
