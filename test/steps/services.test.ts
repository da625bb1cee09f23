// Services a cloud may not offer (src/steps/services.ts): `offered` gives undefined for a service missing from the
// catalog (a delete: nothing of ours there) and rethrows anything else; `required` turns the absence into a step
// failure naming the label that needs the service, on its condition.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OpenStackError } from '../../src/openstack/errors.js';
import { StepFailure } from '../../src/steps/errors.js';
import { offered, required } from '../../src/steps/services.js';

const missing = () => Promise.reject(new OpenStackError('dns', 0, undefined, undefined, 'no_endpoint', 'no dns in the catalog'));
const down = () => Promise.reject(new OpenStackError('dns', 503, 'req', 'down', 'server', 'dns: HTTP 503'));

test('offered: the client, or undefined when the catalog lacks the service; other failures thrown', async () => {
  assert.equal(await offered(async () => 'client'), 'client');
  assert.equal(await offered(missing), undefined);
  await assert.rejects(offered(down), (e) => e instanceof OpenStackError && e.status === 503);
});

test('required: the client, or a failure naming the label and the service on the given condition', async () => {
  const use = { reason: 'DnsUnavailable', label: 'api_dns_zone', service: 'the DNS service (Designate)', condition: 'api_lb' as const };
  assert.equal(await required(async () => 'client', use), 'client');
  await assert.rejects(required(missing, use), (e) =>
    e instanceof StepFailure && e.reason === 'DnsUnavailable' && e.condition === 'api_lb' && e.message === 'The label api_dns_zone needs the DNS service (Designate), which the cloud does not offer.');
  await assert.rejects(required(down, use), (e) => e instanceof OpenStackError);
});
