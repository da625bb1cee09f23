// Host plumbing of every node: kernel modules and sysctls, containerd 2.x's configuration (systemd cgroups, the
// pinned sandbox image), and the template's proxy with the cluster's own ranges kept out of it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { containerdConfig, containerdProxy, JOIN_TURN_CONFIGMAP, KUBEADM_CONFIG_PATH, MODULES_LOAD, nodeProxy, SYSCTL } from '../../../src/bootstrap/user-data/host.js';
import { specOf } from '../../support/labels.js';

test('kernel settings for Kubernetes networking: overlay and br_netfilter, forwarding and bridged traffic through iptables', () => {
  assert.deepEqual(MODULES_LOAD.trim().split('\n'), ['overlay', 'br_netfilter']);
  assert.deepEqual(SYSCTL.trim().split('\n'), ['net.ipv4.ip_forward = 1', 'net.bridge.bridge-nf-call-iptables = 1', 'net.bridge.bridge-nf-call-ip6tables = 1']);
  assert.equal(KUBEADM_CONFIG_PATH, '/etc/kubernetes/kubeadm/config.yaml');
  assert.equal(JOIN_TURN_CONFIGMAP, 'magnum-join-turn');
});

test('containerd: config version 3, systemd cgroups, the pause image of the minor from the mirror when there is one', () => {
  const plain = containerdConfig(specOf());
  assert.match(plain, /^version = 3\n/);
  assert.match(plain, /\[plugins\.'io\.containerd\.cri\.v1\.images'\.pinned_images\]\n  sandbox = 'registry\.k8s\.io\/pause:3\.10\.1'\n/);
  assert.match(plain, /\[plugins\.'io\.containerd\.cri\.v1\.runtime'\.containerd\.runtimes\.runc\.options\]\n  SystemdCgroup = true\n/);
  assert.match(containerdConfig(specOf({ labels: { container_infra_prefix: 'mirror.example.org/k8s' } })), /sandbox = 'mirror\.example\.org\/k8s\/pause:3\.10\.1'/);
});

test('the proxy: none without the template\'s; the cluster\'s ranges, the API endpoint and the service domains bypass it, each once', () => {
  assert.equal(nodeProxy(specOf(), '10.0.0.10'), null);
  assert.equal(containerdProxy(specOf(), '10.0.0.10'), null);
  const spec = specOf({ template: { http_proxy: 'http://proxy:3128', no_proxy: 'internal.example.org,localhost' } });
  assert.deepEqual(nodeProxy(spec, '10.0.0.10'), {
    http: 'http://proxy:3128',
    https: '',
    noProxy: 'internal.example.org,localhost,127.0.0.1,10.0.0.10,10.0.0.0/24,10.100.0.0/16,10.254.0.0/16,.svc,.cluster.local',
  });
  assert.equal(containerdProxy(spec, '10.0.0.10'), '[Service]\nEnvironment="HTTP_PROXY=http://proxy:3128"\nEnvironment="NO_PROXY=internal.example.org,localhost,127.0.0.1,10.0.0.10,10.0.0.0/24,10.100.0.0/16,10.254.0.0/16,.svc,.cluster.local"\n');
  const both = containerdProxy(specOf({ template: { http_proxy: 'http://a:1', https_proxy: 'http://b:2' } }), 'api.example.org')!;
  assert.match(both, /Environment="HTTP_PROXY=http:\/\/a:1"\nEnvironment="HTTPS_PROXY=http:\/\/b:2"\nEnvironment="NO_PROXY=localhost,127\.0\.0\.1,api\.example\.org,/);
});
