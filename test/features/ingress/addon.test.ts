// Add-on `ingress` (ingress_controller=octavia): octavia-ingress-controller, one Octavia load balancer per Ingress,
// with the cluster's credential; nginx and traefik refused with the reason; the wildcard record with api_dns_zone.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { renderAddons } from '../../../src/bootstrap/addons/framework.js';
import { controllerConfig, INGRESS_CONFIG_SECRET, ingressAddon, type IngressSettings } from '../../../src/features/ingress/addon.js';
import { parseClusterSpec } from '../../../src/cluster-spec/parse.js';
import { addon, contextFor, find, rendered } from '../../support/addons.js';
import { labelError, specOf } from '../../support/labels.js';
import { input, UUID } from '../../support/spec-fixtures.js';

test('ingress: off by default; ingress_controller=octavia renders the controller with its config from the cloud credential', () => {
  assert.ok(!rendered().addons.some((a) => a.name === 'ingress'));
  const ing = addon(rendered({ labels: { ingress_controller: 'Octavia' } }).addons, 'ingress');
  assert.deepEqual(ing.objects.map((o) => o.kind), ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Secret', 'StatefulSet']);
  const secret = find<{ data: Record<string, string> }>(ing, 'Secret', 'octavia-ingress-controller-config');
  const conf = parse(Buffer.from(secret.data['config.yaml']!, 'base64').toString());
  assert.deepEqual(conf, {
    'cluster-name': UUID,
    openstack: { 'auth-url': 'https://keystone.example.org:5000/v3', region: 'RegionOne', 'application-credential-id': 'id', 'application-credential-secret': 'secret', 'ca-file': '/etc/config/ca.crt' },
    octavia: { 'subnet-id': 'subnet', 'floating-network-id': 'ext', provider: 'amphora', 'manage-security-groups': false },
  });
  assert.ok(secret.data['ca.crt']);
  const c = find<any>(ing, 'StatefulSet', 'octavia-ingress-controller').spec.template.spec.containers[0];
  assert.equal(c.image, 'registry.k8s.io/provider-os/octavia-ingress-controller:v1.35.0');
  assert.deepEqual(c.args, ['/bin/octavia-ingress-controller', '--config=/etc/config/config.yaml']);
});

test('ingress: OVN clusters still get amphora LBs for Ingresses (L7); tag label follows the minor', () => {
  const ing = addon(rendered({ labels: { ingress_controller: 'octavia', octavia_provider: 'ovn', octavia_ingress_controller_tag: 'v1.35.3' } }).addons, 'ingress');
  const secret = find<{ data: Record<string, string> }>(ing, 'Secret', 'octavia-ingress-controller-config');
  assert.equal(parse(Buffer.from(secret.data['config.yaml']!, 'base64').toString()).octavia.provider, 'amphora');
  assert.match(JSON.stringify(ing.objects), /octavia-ingress-controller:v1\.35\.3/);
  assert.throws(() => parseClusterSpec(input({ labels: { ingress_controller: 'octavia', octavia_ingress_controller_tag: 'v1.18.0' } })), labelError('octavia_ingress_controller_tag', /release train/));
  const { warnings } = parseClusterSpec(input({ labels: { octavia_ingress_controller_tag: 'v1.35.3' } }));
  assert.match(warnings.join('\n'), /octavia_ingress_controller_tag is ignored without ingress_controller=octavia/);
});

test('ingress: nginx and traefik are rejected with the reason; unknown controllers too', () => {
  assert.throws(() => parseClusterSpec(input({ labels: { ingress_controller: 'nginx' } })), labelError('ingress_controller', /retired upstream.*ingress_controller=octavia/));
  assert.throws(() => parseClusterSpec(input({ labels: { ingress_controller: 'traefik' } })), labelError('ingress_controller', /Traefik v1\.7/));
  assert.throws(() => parseClusterSpec(input({ labels: { ingress_controller: 'haproxy' } })), labelError('ingress_controller', /Expected one of/));
  assert.ok(!rendered({ labels: { ingress_controller: '' } }).addons.some((a) => a.name === 'ingress'));
});

test('controllerConfig: no CA file and no floating network unless given; the provider as told', () => {
  const cloud = contextFor(specOf(), false).cloud;
  const conf = parse(controllerConfig('c-1', 'amphora', { ...cloud, network: { subnetId: 's-1' } }));
  assert.deepEqual(conf, {
    'cluster-name': 'c-1',
    openstack: { 'auth-url': 'https://keystone.example.org:5000/v3', region: 'RegionOne', 'application-credential-id': 'id', 'application-credential-secret': 'secret' },
    octavia: { 'subnet-id': 's-1', provider: 'amphora', 'manage-security-groups': false },
  });
});

test('ingress settings: the wildcard record under the API\'s name with api_dns_zone and the octavia controller only', () => {
  const settings = (labels: Record<string, string>) => specOf({ labels }).features.ingress as IngressSettings;
  assert.deepEqual(settings({ ingress_controller: 'octavia', api_dns_zone: 'k8s.example.org' }).wildcardDns, { zone: 'k8s.example.org.', name: '*.k1-5d12f6fd.k8s.example.org.' });
  assert.equal(settings({ ingress_controller: 'octavia' }).wildcardDns, null);
  assert.equal(settings({ api_dns_zone: 'k8s.example.org' }).wildcardDns, null);
  assert.deepEqual(settings({}), { controller: null, image: 'registry.k8s.io/provider-os/octavia-ingress-controller:v1.35.0', wildcardDns: null });
  assert.equal(settings({ ingress_controller: 'octavia', container_infra_prefix: 'mirror.example.org/k8s' }).image, 'mirror.example.org/k8s/octavia-ingress-controller:v1.35.0');
});

test('ingress objects: the controller may update Ingresses and their status, read Secrets (TLS) and Services; one replica with its config mounted', () => {
  const ing = addon(rendered({ labels: { ingress_controller: 'octavia' } }).addons, 'ingress');
  const rules = find<any>(ing, 'ClusterRole', 'system:octavia-ingress-controller').rules as { resources: string[]; verbs: string[] }[];
  assert.ok(rules.some((r) => r.resources.includes('ingresses/status') && r.verbs.includes('update')));
  assert.ok(rules.some((r) => r.resources.includes('secrets') && !r.verbs.includes('update')));
  const sts = find<any>(ing, 'StatefulSet', 'octavia-ingress-controller');
  assert.deepEqual([sts.spec.replicas, sts.spec.serviceName], [1, 'octavia-ingress-controller']);
  assert.deepEqual(sts.spec.template.spec.volumes, [{ name: 'config', secret: { secretName: INGRESS_CONFIG_SECRET } }]);
  const spec = specOf({ labels: { ingress_controller: 'octavia' } });
  const [withoutCa] = renderAddons([ingressAddon], spec, contextFor(spec, false));
  assert.deepEqual(Object.keys(find<any>(withoutCa!, 'Secret', INGRESS_CONFIG_SECRET).data), ['config.yaml'], 'no CA without a private one');
  assert.equal(UUID, parse(Buffer.from(find<any>(ing, 'Secret', INGRESS_CONFIG_SECRET).data['config.yaml'], 'base64').toString())['cluster-name']);
  assert.throws(() => parseClusterSpec(input({ labels: { ingress_controller: 'octavia', octavia_ingress_controller_tag: 'nope!' } })), labelError('octavia_ingress_controller_tag', /image tag/));
});
