import { test } from 'node:test';
import assert from 'node:assert/strict';
import { iniValue, renderCloudConfig } from '../../src/bootstrap/cloudconf.js';
import { parseClusterSpec } from '../../src/cluster-spec/parse.js';
import { input, keystoneCa, UUID } from '../support/spec-fixtures.js';

const cred = { authUrl: 'https://keystone.example.org:5000/v3', region: 'RegionOne', applicationCredentialId: '0f3c', applicationCredentialSecret: 's3cr;et"#x\\y' };
const net = { floatingNetworkId: 'ext-net-id', subnetId: 'subnet-id', networkName: 'k1-net' };

test('cloud.conf: [Global] app credential, [LoadBalancer] from octavia labels, [BlockStorage]', () => {
  const { spec } = parseClusterSpec(input({ labels: { kube_tag: 'v1.34.3' } }));
  const out = renderCloudConfig(spec, { ...cred, caCertPem: keystoneCa }, net);
  const conf = out.secretData['cloud.conf']!;
  assert.match(conf, /^\[Global\]\nauth-url=https:\/\/keystone\.example\.org:5000\/v3\nregion=RegionOne\napplication-credential-id=0f3c\n/);
  assert.match(conf, /application-credential-secret="s3cr;et\\"#x\\\\y"\n/);
  assert.match(conf, /ca-file=\/etc\/config\/ca\.crt/);
  assert.match(conf, /\[LoadBalancer\]\nfloating-network-id=ext-net-id\nsubnet-id=subnet-id\nlb-provider=amphora\nlb-method=ROUND_ROBIN\ncreate-monitor=true\n/);
  assert.match(conf, /\[Networking\]\ninternal-network-name=k1-net/);
  assert.match(conf, /\[BlockStorage\]\nignore-volume-az=true/);
  assert.equal(out.secretData['ca.crt'], keystoneCa);
  assert.deepEqual(out.occm, { clusterName: UUID, image: 'registry.k8s.io/provider-os/openstack-cloud-controller-manager:v1.34.1' });
  assert.deepEqual(out.cinderCsi, { cluster: UUID, image: 'registry.k8s.io/provider-os/cinder-csi-plugin:v1.34.1' });
});

test('cloud.conf: ovn provider, no monitor, no CA, optional network fields left out', () => {
  const { spec } = parseClusterSpec(input({ labels: { octavia_provider: 'ovn', octavia_lb_healthcheck: 'false', container_infra_prefix: 'mirror.example.org/k8s' } }));
  const out = renderCloudConfig(spec, cred, { subnetId: 'subnet-id' });
  const conf = out.secretData['cloud.conf']!;
  assert.match(conf, /lb-provider=ovn\nlb-method=SOURCE_IP_PORT\ncreate-monitor=false\ncascade-delete=true/);
  assert.doesNotMatch(conf, /ca-file|floating-network-id|monitor-delay|\[Networking\]/);
  assert.deepEqual(Object.keys(out.secretData), ['cloud.conf']);
  assert.equal(out.occm.image, 'mirror.example.org/k8s/openstack-cloud-controller-manager:v1.35.0');
});

test('cloud.conf values: quoting and refusals', () => {
  assert.equal(iniValue('plain-value_1.2:3/4'), 'plain-value_1.2:3/4');
  assert.equal(iniValue('a b'), '"a b"');
  assert.throws(() => iniValue('a\nb'), /line breaks/);
  const { spec } = parseClusterSpec(input());
  assert.throws(() => renderCloudConfig(spec, { ...cred, applicationCredentialSecret: '' }, net), /applicationCredentialSecret is required/);
});
