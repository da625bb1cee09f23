// Core module `kubernetes`: kube_tag picks the minor's row of pinned components and keeps the patch; the image
// registry mirror; containerd with systemd cgroups only; whether nodes may install Kubernetes at boot.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseClusterSpec } from '../../../src/cluster-spec/parse.js';
import { VERSION_MATRIX } from '../../../src/cluster-spec/versions.js';
import { kubernetesModule } from '../../../src/cluster-spec/modules/kubernetes.js';
import { input } from '../../support/spec-fixtures.js';
import { rejects, specOf } from '../../support/labels.js';

test('kube_tag maps to its minor row; the patch is kept', () => {
  for (const [tag, minor] of [['v1.34.2', '1.34'], ['v1.35.2', '1.35'], ['v1.36.0', '1.36']] as const) {
    const { spec } = parseClusterSpec(input({ labels: { kube_tag: tag } }));
    assert.equal(spec.kubernetes.minor, minor);
    assert.equal(spec.kubernetes.version, tag);
    assert.equal(spec.cloudProvider.cinderCsiTag, VERSION_MATRIX[minor].cinderCsi);
  }
});

test('bad label values are 400s naming the label: kube_tag, container_runtime, cgroup_driver, container_infra_prefix', () => {
  rejects({ kube_tag: 'banana' }, 'kube_tag', /Invalid input for label kube_tag\. Value: 'banana'\. Expected a Kubernetes release tag/);
  rejects({ kube_tag: 'v1.33.4' }, 'kube_tag', /1\.33 is not supported/);
  rejects({ kube_tag: 'v1.23.3-rancher1' }, 'kube_tag', /release tag/);
  rejects({ container_runtime: 'host-docker' }, 'container_runtime', /dockershim/);
  rejects({ container_runtime: 'cri-o' }, 'container_runtime', /Expected one of: , containerd, host-docker/);
  rejects({ cgroup_driver: 'cgroupfs' }, 'cgroup_driver', /systemd/);
  rejects({ container_infra_prefix: 'Mirror.Example.org/k8s' }, 'container_infra_prefix', /registry prefix/);
  rejects({ kube_install_at_boot: 'sometimes' }, 'kube_install_at_boot', /boolean/);
});

test('defaults: the default minor\'s row, upstream registry, systemd, installing at boot', () => {
  const k = specOf().kubernetes;
  assert.deepEqual(k, { minor: '1.35', version: VERSION_MATRIX['1.35'].kubernetes, components: { ...VERSION_MATRIX['1.35'] }, imageRepository: '', cgroupDriver: 'systemd', installAtBoot: true });
  assert.equal(specOf({ labels: { kube_tag: ' v1.36.1 ' } }).kubernetes.version, 'v1.36.1', 'blanks around the tag are dropped');
});

test('container_infra_prefix is kubeadm\'s imageRepository, without its trailing slash; what is accepted spelled the Magnum way', () => {
  assert.equal(specOf({ labels: { container_infra_prefix: 'mirror.example.org:5000/k8s/' } }).kubernetes.imageRepository, 'mirror.example.org:5000/k8s');
  assert.equal(specOf({ labels: { container_infra_prefix: '' } }).kubernetes.imageRepository, '');
  for (const container_runtime of ['', 'containerd']) assert.equal(specOf({ labels: { container_runtime } }).kubernetes.cgroupDriver, 'systemd');
  assert.equal(specOf({ labels: { cgroup_driver: 'systemd' } }).kubernetes.cgroupDriver, 'systemd');
  assert.equal(specOf({ labels: { kube_install_at_boot: 'false' } }).kubernetes.installAtBoot, false);
});

test('the module\'s labels, and what kube_tag accepts as the label table shows it', () => {
  assert.deepEqual([kubernetesModule.key, kubernetesModule.kind], ['kubernetes', 'core']);
  assert.deepEqual(Object.keys(kubernetesModule.labels), ['kube_tag', 'container_infra_prefix', 'container_runtime', 'cgroup_driver', 'kube_install_at_boot']);
  assert.equal(kubernetesModule.labels.kube_tag.type.accepts, 'v1.34.x | v1.35.x | v1.36.x');
  assert.deepEqual(kubernetesModule.labels.kube_tag.type.parse(' v1.34.2 '), { minor: '1.34', kubernetes: 'v1.34.2', components: VERSION_MATRIX['1.34'] });
});
