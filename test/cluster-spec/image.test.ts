// The node image contract: which Glance images nodes boot from (os_distro, os_version), what kube_version says
// they carry, and the user-data format each one's first-boot agent reads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { imageProblem, imageVersionProblem, isNodeDistro, nodeImage, normaliseKubeVersion, supportedImagesText, userDataFormat } from '../../src/cluster-spec/image.js';

test('the contract: os_distro ubuntu (22.04 on) or fedora-coreos, kube_version a release; the version must be kube_tag\'s', () => {
  assert.deepEqual(nodeImage({ os_distro: 'ubuntu', os_version: '24.04', kube_version: '1.35.5' }), { distro: 'ubuntu', kubeVersion: 'v1.35.5' });
  assert.deepEqual(nodeImage({ os_distro: 'fedora-coreos', kube_version: 'v1.36.1-1.1' }), { distro: 'fedora-coreos', kubeVersion: 'v1.36.1' });
  assert.equal(imageProblem({ os_distro: 'ubuntu', os_version: '22.04' }), undefined);
  assert.match(imageProblem({ os_distro: 'ubuntu', os_version: '20.04' })!, /cgroup v1/);
  assert.match(imageProblem({ os_distro: 'debian' })!, /os_distro is 'debian'; nodes boot from images with os_distro ubuntu \(cloud-init\) or fedora-coreos \(Ignition\)/);
  assert.match(imageProblem({})!, /no os_distro property/);
  assert.match(imageProblem({ os_distro: 'ubuntu', kube_version: 'stable' })!, /not a Kubernetes release/);
  assert.equal(imageVersionProblem({ distro: 'ubuntu', kubeVersion: null }, 'v1.35.5'), undefined, 'an image that says nothing fits any version');
  assert.equal(imageVersionProblem({ distro: 'ubuntu', kubeVersion: 'v1.35.5' }, 'v1.35.5'), undefined);
  assert.match(imageVersionProblem({ distro: 'ubuntu', kubeVersion: 'v1.35.4' }, 'v1.35.5')!, /carries Kubernetes v1\.35\.4 .* kube_tag is v1\.35\.5/);
});

test('kube_version: a release with or without the v and a package revision, written vMAJOR.MINOR.PATCH', () => {
  assert.equal(normaliseKubeVersion('1.35.5'), 'v1.35.5');
  assert.equal(normaliseKubeVersion(' v1.35.05+build.1 '), 'v1.35.5');
  for (const raw of ['1.35', 'v1', 'stable', '1.35.5_1']) assert.equal(normaliseKubeVersion(raw), undefined, raw);
  assert.equal(nodeImage({ os_distro: 'ubuntu', kube_version: '   ' }).kubeVersion, null, 'a blank property says nothing');
});

test('which distributions, and the format their agent reads', () => {
  assert.equal(supportedImagesText(), 'ubuntu (cloud-init) or fedora-coreos (Ignition)');
  assert.ok(isNodeDistro('ubuntu') && isNodeDistro('fedora-coreos'));
  assert.ok(!isNodeDistro('toString') && !isNodeDistro('Ubuntu'), 'own keys only, as written');
  assert.equal(userDataFormat({ distro: 'ubuntu', kubeVersion: null }), 'cloud-config');
  assert.equal(userDataFormat({ distro: 'fedora-coreos', kubeVersion: 'v1.35.5' }), 'ignition');
  assert.throws(() => nodeImage({ os_distro: 'centos' }), /its os_distro is 'centos'/);
  assert.equal(imageProblem({ os_distro: 'ubuntu', os_version: 'noble' }), undefined, 'a version that is not a number is not judged');
  assert.equal(imageProblem({ os_distro: 'fedora-coreos', os_version: '20.04' }), undefined, 'the cgroup rule is Ubuntu\'s');
  assert.match(imageProblem({ os_distro: 'ubuntu', os_version: '21.10' })!, /Ubuntu 21\.10/);
});
