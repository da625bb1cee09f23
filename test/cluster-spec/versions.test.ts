// The version table: one row of pinned component versions per supported Kubernetes minor, and kube_tag
// resolved to its row.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CALICO_RELEASES } from '../../src/bootstrap/addons/cni-calico/index.js';
import { DEFAULT_MINOR, isSupportedMinor, resolveKubeTag, SUPPORTED_MINORS, VERSION_MATRIX } from '../../src/cluster-spec/versions.js';

test('version table: every minor pins add-on images, and its Calico release is one the operator table knows', () => {
  for (const minor of SUPPORTED_MINORS) {
    const row = VERSION_MATRIX[minor];
    assert.equal(CALICO_RELEASES[row.calico], row.tigeraOperator, `${minor}: calico ${row.calico}`);
    for (const [k, v] of Object.entries(row)) assert.match(v, /^v?\d+\.\d+\.\d+/, `${minor}.${k}`);
  }
});

test('every row is of its minor: kubernetes, crictl and the cloud provider\'s images follow the minor; containerd is 2.x', () => {
  for (const minor of SUPPORTED_MINORS) {
    const row = VERSION_MATRIX[minor];
    for (const k of ['kubernetes', 'crictl', 'cloudProvider', 'cinderCsi', 'k8sKeystoneAuth', 'octaviaIngressController'] as const) {
      assert.ok(row[k].startsWith(`v${minor}.`), `${minor}.${k} = ${row[k]}`);
    }
    assert.match(row.containerd, /^v2\./, `${minor}: containerd 2.x (cgroup v2, config version 3)`);
  }
  assert.deepEqual(Object.keys(VERSION_MATRIX), [...SUPPORTED_MINORS]);
});

test('resolveKubeTag: no tag is the default minor\'s release; a tag keeps its patch and takes its minor\'s row', () => {
  assert.equal(DEFAULT_MINOR, '1.35');
  assert.deepEqual(resolveKubeTag(undefined), { minor: '1.35', kubernetes: VERSION_MATRIX['1.35'].kubernetes, components: VERSION_MATRIX['1.35'] });
  const r = resolveKubeTag('v1.34.2');
  assert.deepEqual([r.minor, r.kubernetes, r.components], ['1.34', 'v1.34.2', VERSION_MATRIX['1.34']]);
  assert.equal(resolveKubeTag('v1.36.07').kubernetes, 'v1.36.7', 'written the way kubeadm expects it');
});

test('resolveKubeTag refuses what is not a release tag, and minors out of the table, naming the supported ones', () => {
  for (const tag of ['1.35.2', 'v1.35', 'v1.35.2-rc.0', 'v2.0.0', 'latest', '']) assert.throws(() => resolveKubeTag(tag), /Expected a Kubernetes release tag like v1\.35\.5\./, tag);
  assert.throws(() => resolveKubeTag('v1.37.0'), /^Error: Kubernetes 1\.37 is not supported; supported minors are 1\.34, 1\.35, 1\.36\.$/);
  assert.equal(isSupportedMinor('1.36'), true);
  assert.equal(isSupportedMinor('1.33'), false);
});
