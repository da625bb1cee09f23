// The classification of an OpenStack failure (src/openstack/errors.ts), decided in one place: which failures
// are retried for which methods (table), which are capacity errors, and the fault read from every service's
// envelope.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { faultOf, isCapacityError, OpenStackError, retryReason, type RetryReason } from '../../src/openstack/errors.js';
import { mayRetry } from '../../src/openstack/retry.js';

describe('classification', () => {
  const neutron = (type: string) => ({ NeutronError: { type, message: `${type} message`, detail: '' } });
  const octavia = (faultstring: string) => ({ faultcode: 'Client', faultstring, debuginfo: null });
  const nova = (name: string, message: string) => ({ [name]: { code: 0, message } });
  const cases: { service: string; status: number; body?: unknown; method: string; reason: RetryReason | undefined; retry: boolean; capacity?: boolean }[] = [
    { service: 'compute', status: 503, method: 'GET', reason: 'server', retry: true },
    { service: 'compute', status: 500, method: 'POST', reason: 'server', retry: false },
    { service: 'compute', status: 502, method: 'DELETE', reason: 'server', retry: true },
    { service: 'compute', status: 501, method: 'GET', reason: undefined, retry: false },
    { service: 'compute', status: 0, method: 'POST', reason: 'no_answer', retry: false },
    { service: 'compute', status: 0, method: 'PUT', reason: 'no_answer', retry: true },
    { service: 'compute', status: 409, body: nova('conflictingRequest', "Cannot 'update tag' instance x while it is in vm_state building"), method: 'PUT', reason: undefined, retry: false },
    { service: 'compute', status: 403, body: nova('forbidden', 'Quota exceeded for instances: Requested 1, but already used 10 of 10 instances'), method: 'POST', reason: undefined, retry: false, capacity: true },
    { service: 'load-balancer', status: 409, body: octavia('Load Balancer lb is immutable and cannot be updated.'), method: 'POST', reason: 'busy', retry: true },
    { service: 'load-balancer', status: 409, body: octavia('Invalid state PENDING_UPDATE of loadbalancer resource lb'), method: 'DELETE', reason: 'busy', retry: true },
    { service: 'load-balancer', status: 409, body: octavia('Another Listener on this Load Balancer is already using protocol TCP and protocol_port 6443'), method: 'POST', reason: undefined, retry: false },
    { service: 'load-balancer', status: 503, body: octavia('Project busy. Unable to lock the project. Please try again.'), method: 'POST', reason: 'busy', retry: true },
    { service: 'load-balancer', status: 403, body: octavia('Quota has been met for resources: Load Balancer'), method: 'POST', reason: undefined, retry: false, capacity: true },
    { service: 'network', status: 409, body: neutron('SubnetInUse'), method: 'DELETE', reason: 'busy', retry: true },
    { service: 'network', status: 409, body: neutron('SubnetInUse'), method: 'PUT', reason: undefined, retry: false },
    { service: 'network', status: 409, body: neutron('ServicePortInUse'), method: 'DELETE', reason: undefined, retry: false },
    { service: 'network', status: 409, body: neutron('OverQuota'), method: 'POST', reason: undefined, retry: false, capacity: true },
    { service: 'network', status: 409, body: neutron('IpAddressGenerationFailure'), method: 'POST', reason: undefined, retry: false, capacity: true },
    { service: 'network', status: 409, body: neutron('SecurityGroupRuleExists'), method: 'POST', reason: undefined, retry: false },
    { service: 'block-storage', status: 413, body: nova('overLimit', 'VolumeLimitExceeded: Maximum number of volumes allowed (10) exceeded'), method: 'POST', reason: undefined, retry: false, capacity: true },
    { service: 'dns', status: 429, method: 'POST', reason: 'rate_limited', retry: true },
    { service: 'image', status: 401, method: 'GET', reason: undefined, retry: false },
    { service: 'image', status: 404, method: 'GET', reason: undefined, retry: false },
  ];
  for (const c of cases) {
    const label = `${c.service} ${c.method} ${c.status || 'no answer'} ${c.body ? JSON.stringify(c.body).slice(0, 60) : ''}`;
    test(label, () => {
      const kind = c.status === 0 ? 'timeout' : c.status >= 500 ? 'server' : 'conflict';
      const e = new OpenStackError(c.service, c.status, undefined, c.body, kind, 'x');
      assert.equal(retryReason(e, c.method), c.reason);
      assert.equal(mayRetry(e, c.method, ['GET', 'PUT', 'DELETE'].includes(c.method)), c.retry);
      assert.equal(isCapacityError(e), c.capacity ?? false);
    });
  }

  test('faults read from every envelope', () => {
    assert.deepEqual(faultOf({ NeutronError: { type: 'PortNotFound', message: 'Port x could not be found.', detail: '' } }), { type: 'PortNotFound', message: 'Port x could not be found.' });
    assert.deepEqual(faultOf({ itemNotFound: { code: 404, message: 'Instance x could not be found.' } }), { type: 'itemNotFound', message: 'Instance x could not be found.' });
    assert.deepEqual(faultOf({ faultcode: 'Client', faultstring: 'Load Balancer x not found.', debuginfo: null }), { type: 'Client', message: 'Load Balancer x not found.' });
    assert.deepEqual(faultOf({ error: { code: 401, title: 'Unauthorized', message: 'The request you have made requires authentication.' } }), { type: 'Unauthorized', message: 'The request you have made requires authentication.' });
    assert.deepEqual(faultOf({ code: 404, type: 'zone_not_found', message: 'Could not find Zone', request_id: 'req-1' }), { type: 'zone_not_found', message: 'Could not find Zone' });
    assert.deepEqual(faultOf('404 Not Found\n\nNo image'), { type: undefined, message: '404 Not Found\n\nNo image' });
    assert.deepEqual(faultOf(undefined), { type: undefined, message: undefined });
  });
});
