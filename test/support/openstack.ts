// Assertions about OpenStack client failures.
import assert from 'node:assert/strict';
import { OpenStackError } from '../../src/openstack/http.js';

/** Runs `fn`, expecting an OpenStackError; returns it. */
export async function failure(fn: () => Promise<unknown>): Promise<OpenStackError> {
  try {
    await fn();
  } catch (e) {
    assert.ok(e instanceof OpenStackError, `expected OpenStackError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected a failure');
}
