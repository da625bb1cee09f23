// Assertions about the API's HTTP plumbing that several test files share: Magnum's error envelope, the
// microversion headers, Keystone's 401 and the request id every response carries.
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';

/** x-openstack-request-id: req-<uuid4>. */
export const REQUEST_ID = /^req-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const VERSION_HEADERS = ['openstack-api-minimum-version', 'openstack-api-maximum-version', 'openstack-api-version', 'vary'];
export const UNAUTHORIZED = { error: { code: 401, title: 'Unauthorized', message: 'The request you have made requires authentication.' } };

/** One error in Magnum's envelope, with the code, status, title and (when given) detail. */
export function assertEnvelope(res: LightMyRequestResponse, status: number, code: string, title: string, detail?: string): void {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  const body = res.json();
  assert.deepEqual(Object.keys(body), ['errors']);
  assert.equal(body.errors.length, 1);
  const e = body.errors[0];
  assert.deepEqual(Object.keys(e).sort(), ['code', 'detail', 'links', 'request_id', 'status', 'title']);
  assert.equal(e.request_id, '');
  assert.equal(e.code, code);
  assert.equal(e.status, status);
  assert.equal(e.title, title);
  assert.deepEqual(e.links, []);
  if (detail !== undefined) assert.equal(e.detail, detail);
}

export function assertVersionHeaders(res: LightMyRequestResponse, version: string): void {
  assert.equal(res.headers['openstack-api-minimum-version'], 'container-infra 1.1');
  assert.equal(res.headers['openstack-api-maximum-version'], 'container-infra 1.14');
  assert.equal(res.headers['openstack-api-version'], `container-infra ${version}`);
  assert.equal(res.headers.vary, 'OpenStack-API-Version');
}

export function assertNoVersionHeaders(res: LightMyRequestResponse): void {
  for (const h of VERSION_HEADERS) assert.equal(res.headers[h], undefined, `unexpected ${h} header`);
}

/** Keystone's 401 (not the envelope), pointing at `authUrl`. */
export function assertUnauthorized(res: LightMyRequestResponse, authUrl: string): void {
  assert.equal(res.statusCode, 401, res.body);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  assert.deepEqual(res.json(), UNAUTHORIZED);
  assert.equal(res.headers['www-authenticate'], `Keystone uri="${authUrl}"`);
}
