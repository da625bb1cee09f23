// The one request function of the OpenStack clients (src/openstack/http.ts): the headers sent, and every
// failure (HTTP status, no answer, no endpoint) as one typed OpenStackError.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CatalogEntry } from '../../src/keystone/context.js';
import { OpenStackError, requestJson, sessionFor, type Session } from '../../src/openstack/http.js';
import { closedPort } from '../support/net.js';
import { failure } from '../support/openstack.js';

describe('http', () => {
  test('a session for a service the catalog lacks: OpenStackError no_endpoint, status 0', () => {
    const catalog: CatalogEntry[] = [{ type: 'image', endpoints: [{ interface: 'public', url: 'http://glance:9292/' }] }];
    const e = (() => {
      try {
        sessionFor(catalog, 't', 'compute', { timeoutMs: 1000 });
      } catch (err) {
        return err as OpenStackError;
      }
      return undefined;
    })();
    assert.ok(e instanceof OpenStackError);
    assert.equal(e.kind, 'no_endpoint');
    assert.equal(e.status, 0);
  });

  test('sends the token and a global request id, keeps the token out of errors, maps no answer', async () => {
    let seen: IncomingHttpHeaders = {};
    const srv = createServer((req, res) => {
      seen = req.headers;
      res.writeHead(500, { 'content-type': 'application/json', 'x-openstack-request-id': 'req-from-server' }).end('{"computeFault":{"code":500}}');
    });
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
    try {
      const s: Session = { service: 'compute', baseUrl: base, token: 'secret-token', timeoutMs: 2000, globalRequestId: 'req-00000000-0000-4000-8000-000000000000' };
      const e = await failure(() => requestJson(s, { path: '/servers' }));
      assert.equal(seen['x-auth-token'], 'secret-token');
      assert.equal(seen['x-openstack-request-id'], 'req-00000000-0000-4000-8000-000000000000');
      assert.deepEqual([e.status, e.kind, e.requestId, e.retryable], [500, 'server', 'req-from-server', true]);
      assert.deepEqual(e.body, { computeFault: { code: 500 } });
      assert.doesNotMatch(e.message + JSON.stringify(e), /secret-token/);

      const { globalRequestId: _, ...withoutId } = s;
      await failure(() => requestJson(withoutId, { path: '/x' }));
      assert.match(String(seen['x-openstack-request-id']), /^req-[0-9a-f-]{36}$/);
    } finally {
      srv.close();
    }
    const down = await failure(() => requestJson({ service: 'image', baseUrl: 'http://127.0.0.1:1', token: 't', timeoutMs: 2000 }, { path: '/v2/images' }));
    assert.deepEqual([down.status, down.kind, down.retryable], [0, 'unreachable', true]);
    const port = await closedPort();
    const refused = await failure(() => requestJson({ service: 'image', baseUrl: `http://127.0.0.1:${port}`, token: 't', timeoutMs: 2000 }, { path: '/' }));
    assert.equal(refused.kind, 'unreachable');
    assert.match(refused.message, /ECONNREFUSED/);
  });
});
