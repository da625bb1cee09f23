// OpenStack-API-Version negotiation (src/domain/microversion.ts, spec §1.2–§1.4) as functions: the
// header's values, the errors for malformed and unsupported ones, the echo and the response headers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, MicroversionUnsupported } from '../../src/domain/errors.js';
import { atLeast, format, MAX_VERSION, MIN_VERSION, parseVersionHeader, requestedVersionText, versionHeaders } from '../../src/domain/microversion.js';

const accepted: [string | undefined, string][] = [
  [undefined, '1.1'],
  ['container-infra 1.5', '1.5'],
  ['container-infra 1.14', '1.14'],
  ['  container-infra   1.10 ', '1.10'],
  ['container-infra latest', '1.14'],
  ['container-infra LaTeSt', '1.14'],
  ['magnum latest', '1.14'],
];
for (const [header, version] of accepted) {
  test(`${JSON.stringify(header ?? null)} → ${version}`, () => {
    assert.equal(format(parseVersionHeader(header)), version);
  });
}

const malformed: [string, string][] = [
  ['container-infra', 'Invalid service type for OpenStack-API-Version header'],
  ['container-infra 1.5 extra', 'Invalid service type for OpenStack-API-Version header'],
  ['Container-Infra 1.2', 'Invalid service type for OpenStack-API-Version header'],
  ['container-infra 1.x', 'Invalid value for OpenStack-API-Version header'],
  ['container-infra 1', 'Invalid value for OpenStack-API-Version header'],
];
for (const [header, message] of malformed) {
  test(`${JSON.stringify(header)} is a 406 Not Acceptable: ${message}`, () => {
    assert.throws(() => parseVersionHeader(header), (e: unknown) => e instanceof ApiError && e.status === 406 && e.message === message && e.title === 'Not Acceptable');
  });
}

test('outside 1.1…1.14: MicroversionUnsupported, naming the requested version and the range', () => {
  const err = (h: string) => {
    try {
      parseVersionHeader(h);
    } catch (e) {
      assert.ok(e instanceof MicroversionUnsupported);
      return e;
    }
    assert.fail('no error');
  };
  const major = err('container-infra 2.0');
  assert.equal(major.requested, '2.0');
  assert.match(major.detail, /^Mutually exclusive versions requested\. Version 2\.0 requested but not supported.*\[1\.1, 1\.14\]\.$/);
  const minor = err('container-infra 1.15');
  assert.equal(minor.requested, '1.15');
  assert.match(minor.detail, /^Version 1\.15 was requested but the minor version is not supported/);
  assert.equal(err('container-infra 1.0').requested, '1.0');
});

test('the echoed version: the header’s own text (latest resolved), 1.1 without a header', () => {
  assert.equal(requestedVersionText(undefined), '1.1');
  assert.equal(requestedVersionText('container-infra 1.99'), '1.99');
  assert.equal(requestedVersionText('container-infra latest'), format(MAX_VERSION));
  assert.equal(requestedVersionText('garbage'), '');
});

test('atLeast compares minors within 1.x; the range is 1.1 to 1.14', () => {
  assert.equal(atLeast({ major: 1, minor: 10 }, 10), true);
  assert.equal(atLeast({ major: 1, minor: 9 }, 10), false);
  assert.equal(atLeast({ major: 2, minor: 0 }, 10), true);
  assert.deepEqual([format(MIN_VERSION), format(MAX_VERSION)], ['1.1', '1.14']);
});

test('the response headers name the range and the version, and vary on the header', () => {
  assert.deepEqual(versionHeaders('1.7'), {
    'openstack-api-minimum-version': 'container-infra 1.1',
    'openstack-api-maximum-version': 'container-infra 1.14',
    'openstack-api-version': 'container-infra 1.7',
    vary: 'OpenStack-API-Version',
  });
});
