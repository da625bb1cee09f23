// Who a request is, as the use cases take it: the caller (its Keystone context and token), and the clusters it
// sees (admins every project's, Magnum's *_all_projects rules, except where a rule keeps them to their own).
import type { FastifyRequest } from 'fastify';
import type { Caller } from '../clusters/lookup.js';
import type { Scope } from '../db/repos/clusters.js';

export const caller = (request: FastifyRequest): Caller => ({ ctx: request.auth, token: request.authToken });

export const scopeOf = (request: FastifyRequest, ownOnly = false): Scope =>
  request.auth.isAdmin && !ownOnly ? { all: true } : { all: false, projectId: request.auth.projectId };
