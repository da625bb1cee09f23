// The shell functions a node runs when its image does not carry Kubernetes and containerd: Ubuntu's packages from
// pkgs.k8s.io, Fedora CoreOS' release binaries, containerd and runc from their releases, each download checked
// against its published sha256, all through the template's proxy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { installFunctions, shq } from '../../../src/bootstrap/user-data/install.js';
import { renderUserData } from '../../../src/bootstrap/user-data/userdata.js';
import { parseClusterSpec } from '../../../src/cluster-spec/parse.js';
import { input, pki } from '../../support/spec-fixtures.js';
import { specOf } from '../../support/labels.js';
import { bootstrapScriptOf, cloudConfigFiles } from '../../support/node-files.js';
import { endpointAndToken as common, workerUserData as worker } from '../../support/user-data.js';

test('a stock Ubuntu image installs the exact version from pkgs.k8s.io and containerd 2.x from its release, checked against the published sha256', () => {
  const script = bootstrapScriptOf(worker());
  assert.match(script, /https:\/\/pkgs\.k8s\.io\/core:\/stable:\/v1\.35\/deb\//);
  assert.match(script, /kubelet=1\.35\.2-1\.1 kubeadm=1\.35\.2-1\.1 kubectl=1\.35\.2-1\.1/);
  assert.match(script, /containerd\/releases\/download\/v2\.2\.1\/containerd-2\.2\.1-linux-\$\{arch\}\.tar\.gz/);
  assert.match(script, /sha256sum --check/);
  assert.match(script, /have_containerd \|\| install_containerd\nif ! have_kubernetes \|\| \[ "\$\(kubeadm version -o short\)" != 'v1\.35\.2' \]; then install_kubernetes; fi/);
  assert.ok(cloudConfigFiles(worker()).has('/usr/local/lib/magnum/containerd.service'));
});

test('Fedora CoreOS installs the release binaries, crictl and the CNI plugins, with its kubelet unit', () => {
  const script = bootstrapScriptOf(worker({ image: { distro: 'fedora-coreos', kubeVersion: null } }));
  assert.match(script, /https:\/\/dl\.k8s\.io\/release\/v1\.35\.2\/bin\/linux\/\$\{arch\}/);
  assert.match(script, /cri-tools\/releases\/download\/v1\.35\.0\/crictl-v1\.35\.0-linux-\$\{arch\}\.tar\.gz/);
  assert.match(script, /containernetworking\/plugins\/releases\/download\/v1\.7\.1\//);
  assert.match(script, /install -m 0644 \/usr\/local\/lib\/magnum\/kubelet\.service \/etc\/systemd\/system\/kubelet\.service/);
  assert.match(script, /setenforce 0/);
  assert.match(script, /169\.254\.169\.254\/openstack\/latest\/meta_data\.json/, 'no cloud-init to ask the instance id');
});

test('the template\'s proxy is exported only inside the install functions', () => {
  const { spec } = parseClusterSpec(input({ template: { http_proxy: 'http://user:p$w@proxy:3128' } }));
  const script = bootstrapScriptOf(renderUserData(spec, { ...common, role: 'worker', nodeName: 'w', caCert: pki.ca.cert }));
  assert.match(script, /use_proxy\(\) \{\n  export http_proxy='http:\/\/user:p\$w@proxy:3128' HTTP_PROXY=/, 'one single-quoted shell word');
  assert.equal(shq("it's"), `'it'\\''s'`);
  assert.match(script, /install_kubernetes\(\) \(\n  use_proxy\n/);
  assert.match(script, /no_proxy='[^']*10\.0\.0\.10[^']*'/, 'the API endpoint bypasses it');
});

test('the functions, in order: use_proxy, fetch, install_containerd, install_kubernetes (subshells, so the proxy stays in them)', () => {
  const fns = (lines: string[]) => lines.filter((l) => /^[a-z_]+\(\) [({]/.test(l)).map((l) => l.split('(')[0]);
  const spec = specOf();
  assert.deepEqual(fns(installFunctions(spec, 'ubuntu', null)), ['use_proxy', 'fetch', 'install_containerd', 'install_kubernetes']);
  assert.deepEqual(installFunctions(spec, 'ubuntu', null).slice(0, 1), ['use_proxy() { :; }'], 'no proxy: a no-op');
  const lines = installFunctions(spec, 'fedora-coreos', { http: 'http://p:3128', https: '', noProxy: 'localhost' });
  assert.deepEqual(lines.slice(0, 3), ['use_proxy() {', "  export http_proxy='http://p:3128' HTTP_PROXY='http://p:3128' no_proxy='localhost' NO_PROXY='localhost'", '}'], 'an empty value is not exported');
  assert.ok(lines.includes('install_containerd() (') && lines.includes('install_kubernetes() ('));
});

test('containerd and runc of the minor\'s row, checked against their releases\' sums; fetch refuses a download without a sum', () => {
  const text = installFunctions(specOf({ labels: { kube_tag: 'v1.36.1' } }), 'ubuntu', null).join('\n');
  assert.ok(text.includes('fetch "https://github.com/containerd/containerd/releases/download/v2.2.1/containerd-2.2.1-linux-${arch}.tar.gz" /tmp/containerd.tar.gz "https://github.com/containerd/containerd/releases/download/v2.2.1/containerd-2.2.1-linux-${arch}.tar.gz.sha256sum"'));
  assert.ok(text.includes('fetch "https://github.com/opencontainers/runc/releases/download/v1.3.4/runc.${arch}" /tmp/runc "https://github.com/opencontainers/runc/releases/download/v1.3.4/runc.sha256sum"'));
  assert.match(text, /\[ -n "\$want" \] \|\| fail "no sha256 for/);
  assert.match(text, /sha256sum --check --quiet - \|\| fail "sha256 of \$url does not match \$sums"/);
  assert.match(text, /apt-mark hold kubelet kubeadm kubectl/, 'unattended upgrades leave the version alone');
  assert.match(text, /kubelet=1\.36\.1-1\.1 /);
});

test('shq: one single-quoted shell word, whatever the value', () => {
  assert.equal(shq('plain'), "'plain'");
  assert.equal(shq(''), "''");
  assert.equal(shq("a'b'c"), `'a'\\''b'\\''c'`);
  assert.equal(shq('$(reboot) `x` "y"'), `'$(reboot) \`x\` "y"'`);
});
