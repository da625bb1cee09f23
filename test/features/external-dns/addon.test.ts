// Add-on `external-dns` (label external_dns_zone): ExternalDNS publishing the cluster's LoadBalancer Services and
// Ingresses in a Designate zone of the project, owning its records by the cluster uuid.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InvalidLabelError } from '../../../src/domain/errors.js';
import { renderAddons } from '../../../src/bootstrap/addons/framework.js';
import { addons as allAddons } from '../../../src/bootstrap/addons/index.js';
import { credentialEnv, EXTERNAL_DNS_SECRET } from '../../../src/features/external-dns/addon.js';
import { parseClusterSpec } from '../../../src/cluster-spec/parse.js';
import { addon, contextFor, find, rendered } from '../../support/addons.js';
import { validateObject } from '../../support/k8s-validate.js';
import { input, UUID } from '../../support/spec-fixtures.js';

test('external-dns: Designate provider in the label\'s zone, owner id = cluster uuid, credential in a Secret (auth URL in its /v3/ form), Keystone CA mounted', () => {
  const { spec, addons, warnings } = rendered({ labels: { external_dns_zone: 'Apps.Example.org', container_infra_prefix: 'mirror.example.org/k8s' } });
  assert.deepEqual(warnings.filter((w) => /external/.test(w)), []);
  const a = addon(addons, 'external-dns');
  const d = a.objects.find((o) => o.kind === 'Deployment')! as any;
  const c = d.spec.template.spec.containers[0];
  assert.equal(c.image, `mirror.example.org/k8s/external-dns:${spec.kubernetes.components.externalDns}`);
  for (const arg of ['--provider=designate', '--domain-filter=apps.example.org', `--txt-owner-id=${UUID}`, '--registry=txt', '--policy=sync']) assert.ok(c.args.includes(arg), arg);
  assert.equal(d.spec.replicas, 1);
  assert.equal(d.spec.strategy.type, 'Recreate');
  assert.deepEqual(c.envFrom, [{ secretRef: { name: 'external-dns-openstack' } }]);
  assert.deepEqual(c.env, [{ name: 'OPENSTACK_CA_FILE', value: '/etc/external-dns/ca.crt' }]);
  assert.deepEqual(d.spec.template.spec.volumes[0].secret, { secretName: 'cloud-config', items: [{ key: 'ca.crt', path: 'ca.crt' }] });
  const secret = a.objects.find((o) => o.kind === 'Secret')! as any;
  const env = Object.fromEntries(Object.entries(secret.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
  assert.deepEqual(env, { OS_AUTH_URL: 'https://keystone.example.org:5000/v3/', OS_REGION_NAME: 'RegionOne', OS_APPLICATION_CREDENTIAL_ID: 'id', OS_APPLICATION_CREDENTIAL_SECRET: 'secret' });
  assert.doesNotMatch(JSON.stringify(d), /secret"?:\s*"secret"|OS_APPLICATION_CREDENTIAL_SECRET=/, 'the secret is only in the Secret');
  for (const o of a.objects) validateObject(o);
  // Without a private Keystone CA there is nothing to mount.
  const plain = renderAddons(allAddons(), spec, contextFor(spec, false)).find((x) => x.name === 'external-dns')!;
  const pc = (plain.objects.find((o) => o.kind === 'Deployment') as any).spec.template.spec;
  assert.equal(pc.volumes, undefined);
  assert.equal(pc.containers[0].env, undefined);
  // Off without the zone; a tag alone is a warning; a bad zone is a 400 naming the label.
  const off = rendered({ labels: { external_dns_tag: 'v0.19.1' } });
  assert.ok(!off.addons.some((x) => x.name === 'external-dns'));
  assert.ok(off.warnings.some((w) => /external_dns_tag is ignored without external_dns_zone/.test(w)));
  assert.throws(() => parseClusterSpec(input({ labels: { external_dns_zone: 'no zone' } })), (e: unknown) => e instanceof InvalidLabelError && e.label === 'external_dns_zone');
});

test('credentialEnv: gophercloud\'s variables, the auth URL in its /v3/ form whatever was given', () => {
  const c = { authUrl: 'https://keystone.example.org:5000', region: 'R', applicationCredentialId: 'i', applicationCredentialSecret: 's' };
  for (const url of ['https://keystone.example.org:5000', 'https://keystone.example.org:5000/', 'https://keystone.example.org:5000/v3', 'https://keystone.example.org:5000/v3/']) {
    assert.equal(credentialEnv({ ...c, authUrl: url }).OS_AUTH_URL, 'https://keystone.example.org:5000/v3/', url);
  }
  assert.deepEqual(Object.keys(credentialEnv(c)), ['OS_AUTH_URL', 'OS_REGION_NAME', 'OS_APPLICATION_CREDENTIAL_ID', 'OS_APPLICATION_CREDENTIAL_SECRET']);
});

test('external-dns settings and rights: the zone with its dot, the cluster as owner; it reads Services, Ingresses and endpoints only', () => {
  const { spec, addons } = rendered({ labels: { external_dns_zone: 'apps.example.org', external_dns_tag: 'v0.19.1' } });
  assert.deepEqual(spec.features.externalDns, { zone: 'apps.example.org.', ownerId: UUID, image: 'registry.k8s.io/external-dns/external-dns:v0.19.1' });
  assert.equal((rendered().spec.features.externalDns as { zone: unknown }).zone, null, 'off without a zone');
  const a = addon(addons, 'external-dns');
  const role = find<any>(a, 'ClusterRole', 'system:external-dns');
  assert.ok(role.rules.every((r: { verbs: string[] }) => r.verbs.every((v) => ['get', 'list', 'watch'].includes(v))), 'read-only');
  assert.ok(!role.rules.some((r: { resources: string[] }) => r.resources.includes('secrets')));
  assert.equal(find<any>(a, 'Secret', EXTERNAL_DNS_SECRET).metadata.namespace, 'kube-system');
  assert.ok(find<any>(a, 'Deployment', 'external-dns').spec.template.spec.containers[0].args.includes('--source=ingress'));
});
