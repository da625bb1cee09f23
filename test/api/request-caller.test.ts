// Who a request is (src/api/request-caller.ts): the caller as the use cases take it, and the clusters it sees.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyRequest } from 'fastify';
import { caller, scopeOf } from '../../src/api/request-caller.js';

const request = (isAdmin: boolean) => ({ auth: { isAdmin, projectId: 'p1', userId: 'u1', roles: ['member'] }, authToken: 'tok' }) as unknown as FastifyRequest;

test('the caller is the request’s Keystone context with its token', () => {
  const r = request(false);
  assert.deepEqual(caller(r), { ctx: r.auth, token: 'tok' });
});

test('a member sees its project; an admin every project, unless a rule keeps it to its own', () => {
  assert.deepEqual(scopeOf(request(false)), { all: false, projectId: 'p1' });
  assert.deepEqual(scopeOf(request(true)), { all: true });
  assert.deepEqual(scopeOf(request(true), true), { all: false, projectId: 'p1' });
});
