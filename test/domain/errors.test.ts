// The one registry of errors that may leave the API (src/domain/errors.ts): every constructor makes an
// ApiError with a stable code, its status, Magnum's envelope code and message; values are echoed bounded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, errors, InvalidLabelError, MicroversionUnsupported, titleOf } from '../../src/domain/errors.js';

/** The arguments that are lists, by constructor and position; every other argument is a string. */
const LISTS: Record<string, Record<number, unknown[]>> = {
  unknownAttributes: { 1: ['a'] },
  unsupportedNetworkDriver: { 2: ['flannel', 'calico'] },
  unsupportedVolumeDriver: { 2: ['cinder'] },
  availabilityZoneNotOffered: { 2: ['nova'] },
  clusterPropertiesImmutable: { 0: ['name'] },
  clusterCredentialRole: { 0: ['member'] },
  quotaShortage: { 0: [{ quota: 'cores', needed: 5, inUse: 16, limit: 20 }] },
};

/** Calls every constructor of the registry with plausible arguments. */
function everyError(): [string, ApiError][] {
  return Object.entries(errors).map(([name, make]) => {
    const args = Array.from({ length: make.length }, (_, i) => LISTS[name]?.[i] ?? `arg${i}`);
    return [name, (make as (...a: unknown[]) => ApiError)(...args)];
  });
}

test('every constructor makes an ApiError: an id, a 4xx or 5xx status, the envelope code of its class, a message', () => {
  const made = everyError();
  assert.ok(made.length > 80, `the registry holds ${made.length} errors`);
  for (const [name, e] of made) {
    assert.ok(e instanceof ApiError, name);
    assert.match(e.id, /^[a-z_]+$/, name);
    assert.ok(e.status >= 400 && e.status < 600, `${name}: ${e.status}`);
    assert.ok(e.message.length > 0, name);
    if (e.envelopeCode !== '') assert.equal(e.envelopeCode, e.status >= 500 ? 'server' : 'client', name);
    assert.equal(e.name, 'ApiError');
  }
});

test('framework errors carry the reason phrase as title and the empty envelope code', () => {
  for (const [e, status, title] of [
    [errors.routeNotFound(), 404, 'Not Found'],
    [errors.methodNotAllowed(), 405, 'Method Not Allowed'],
    [errors.notAcceptable('x'), 406, 'Not Acceptable'],
    [errors.bodyTooLarge(10), 413, 'Request Entity Too Large'],
  ] as const) {
    assert.deepEqual([e.status, e.envelopeCode, e.title], [status, '', title]);
  }
});

test('headers ride with the errors that need them: WWW-Authenticate, Retry-After, the portal’s expiry', () => {
  assert.deepEqual(errors.unauthorized('http://ks/v3').headers, { 'www-authenticate': 'Keystone uri="http://ks/v3"' });
  assert.deepEqual(errors.loginRateLimited(30).headers, { 'retry-after': '30' });
  assert.equal(errors.backendUnavailable().headers['retry-after'], '2');
  assert.equal(errors.sessionExpired().headers['x-portal-session'], 'expired');
  assert.deepEqual(errors.internal().headers, {});
});

test('a refused value is echoed in 1024 characters at most, saying how long it was', () => {
  const e = errors.invalidInput('name', 'x'.repeat(5000), 'Too long');
  assert.ok(e.message.length < 1200, String(e.message.length));
  assert.match(e.message, /x{1024}\.\.\. \(5000 characters\)'\. Too long$/);
  assert.match(errors.invalidInput('labels', { a: 1 }, 'r').message, /Value: '\{"a":1\}'/);
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assert.match(errors.invalidInput('x', cyclic, 'r').message, /Value: '\[object Object\]'/);
});

test('the NUL character is shown escaped, never raw', () => {
  const e = errors.nulCharacter('name', 'a\u0000b');
  assert.equal(e.message.includes('\u0000'), false);
  assert.match(e.message, /a\\u0000b/);
});

test('singular and plural unknown attributes; a label error carries the label', () => {
  assert.equal(errors.unknownAttributes('cluster', ['a']).message, 'Unknown attribute for argument cluster: a');
  assert.equal(errors.unknownAttributes('cluster', ['a', 'b']).message, 'Unknown attributes for argument cluster: a, b');
  const l = errors.invalidLabel('kube_tag', 'v0', 'too old');
  assert.ok(l instanceof InvalidLabelError);
  assert.deepEqual([l.label, l.value, l.reason, l.status], ['kube_tag', 'v0', 'too old', 400]);
  assert.equal(l.message, "Invalid input for label kube_tag. Value: 'v0'. too old");
});

test('titleOf: Magnum’s title is the message up to its first period', () => {
  assert.equal(titleOf('Cluster x could not be found.'), 'Cluster x could not be found');
  assert.equal(titleOf('Version 1.1.2 is odd'), 'Version 1');
  assert.equal(titleOf('No period'), 'No period');
});

test('an unsupported microversion is no ApiError: it has its own body (spec §1.4)', () => {
  const e = new MicroversionUnsupported('1.99', 'detail');
  assert.equal(e instanceof ApiError, false);
  assert.deepEqual([e.requested, e.detail, e.message], ['1.99', 'detail', 'detail']);
});
