// Pods restart when a Secret they read changes: the workloads reading Secrets of the same rendering carry their
// checksum in their pod template.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { K8sObject } from '../../../src/bootstrap/addons/framework.js';
import { meta, secret, workload } from '../../../src/bootstrap/addons/k8s.js';
import { SECRETS_CHECKSUM, secretsReadBy, templateOf, withSecretChecksums } from '../../../src/bootstrap/addons/secret-checksums.js';

const reader = (name: string, pod: Record<string, unknown>, namespace = 'kube-system') => workload('Deployment', name, { app: name }, pod, {}, namespace);
const checksumOf = (o: K8sObject | undefined) => (o?.spec as any)?.template?.metadata?.annotations?.[SECRETS_CHECKSUM] as string | undefined;

test('secretsReadBy: Secret volumes, projected Secrets, envFrom and env of init and main containers, once each, sorted', () => {
  const names = secretsReadBy({
    volumes: [{ secret: { secretName: 'b' } }, { projected: { sources: [{ secret: { name: 'a' } }, {}] } }, {}],
    initContainers: [{ envFrom: [{ secretRef: { name: 'd' } }] }],
    containers: [{ env: [{ valueFrom: { secretKeyRef: { name: 'c' } } }, {}], envFrom: [{ secretRef: { name: 'b' } }] }],
  });
  assert.deepEqual(names, ['a', 'b', 'c', 'd']);
  assert.deepEqual(secretsReadBy(undefined), []);
});

test('templateOf: the pod template of workloads only', () => {
  const d = reader('r', { containers: [] });
  assert.deepEqual(templateOf(d), (d.spec as any).template);
  assert.equal(templateOf(secret(meta('s', 'kube-system'), {})), undefined);
  assert.equal(templateOf({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' }, spec: { template: {} } }), undefined);
});

test('withSecretChecksums: readers of a rendered Secret in their namespace are stamped; others untouched; the input unchanged', () => {
  const s = secret(meta('cloud-config', 'kube-system'), { 'cloud.conf': 'v1' });
  const r = reader('r', { volumes: [{ secret: { secretName: 'cloud-config' } }], containers: [] });
  const elsewhere = reader('e', { volumes: [{ secret: { secretName: 'cloud-config' } }], containers: [] }, 'monitoring');
  const external = reader('x', { volumes: [{ secret: { secretName: 'not-rendered' } }], containers: [] });
  const input = [s, r, elsewhere, external];
  const before = JSON.stringify(input);
  const out = withSecretChecksums(input);
  assert.equal(JSON.stringify(input), before, 'a new array of new objects');
  assert.match(checksumOf(out[1]) ?? '', /^[0-9a-f]{64}$/);
  assert.equal(out[0], s);
  assert.equal(out[2], elsewhere, 'another namespace\'s Secret of that name is another Secret');
  assert.equal(out[3], external, 'a Secret the rendering does not hold');
});

test('the checksum follows the Secrets\' contents (not their key order) and keeps the template\'s other annotations', () => {
  const stamp = (data: Record<string, string>) => {
    const r = reader('r', { volumes: [{ secret: { secretName: 's' } }], containers: [] });
    (r.spec as any).template.metadata.annotations = { keep: 'me' };
    return withSecretChecksums([secret(meta('s', 'kube-system'), data), r])[1]!;
  };
  const a = stamp({ x: '1', y: '2' });
  assert.equal(checksumOf(a), checksumOf(stamp({ y: '2', x: '1' })));
  assert.notEqual(checksumOf(a), checksumOf(stamp({ x: '1', y: '3' })));
  assert.equal((a.spec as any).template.metadata.annotations.keep, 'me');
});
