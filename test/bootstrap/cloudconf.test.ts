// cloud.conf for OCCM and Cinder CSI (gcfg: values quoted when they must be), and the identity values the add-ons
// take with it (the cluster uuid as cluster name, the images of the minor or the mirror).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLOUD_CONFIG_DIR, iniValue, renderCloudConf, renderCloudConfig } from '../../src/bootstrap/cloudconf.js';
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

test('cloud.conf: sections in order, one blank line apart; the health monitor\'s timing only with a monitor; every required value named when missing', () => {
  const { spec } = parseClusterSpec(input());
  const conf = renderCloudConf(spec, cred, net);
  assert.deepEqual(conf.match(/^\[\w+\]$/gm), ['[Global]', '[LoadBalancer]', '[Networking]', '[BlockStorage]']);
  assert.match(conf, /\n\n\[LoadBalancer\]\n/);
  assert.match(conf, /create-monitor=true\nmonitor-delay=5s\nmonitor-timeout=3s\nmonitor-max-retries=1\ncascade-delete=true\n/);
  assert.equal(CLOUD_CONFIG_DIR, '/etc/config');
  for (const field of ['authUrl', 'region', 'applicationCredentialId'] as const) {
    assert.throws(() => renderCloudConfig(spec, { ...cred, [field]: '' }, net), new RegExp(`cloud\\.conf: ${field} is required`));
  }
  assert.throws(() => renderCloudConfig(spec, cred, { subnetId: '' }), /subnetId is required/);
  const out = renderCloudConfig(spec, cred, net);
  assert.deepEqual([out.credential, out.network], [cred, net]);
  assert.notEqual(out.credential, cred, 'a copy: the caller\'s object stays its own');
});

test('iniValue: the characters gcfg reads bare; booleans and numbers as written; NUL and carriage returns refused', () => {
  assert.equal(iniValue(true), 'true');
  assert.equal(iniValue(3), '3');
  assert.equal(iniValue('user@example.org+a=b,c~d'), 'user@example.org+a=b,c~d');
  assert.equal(iniValue('a;b'), '"a;b"');
  assert.equal(iniValue(''), '""');
  for (const bad of ['a\rb', 'a\u0000b']) assert.throws(() => iniValue(bad), /line breaks/);
});
