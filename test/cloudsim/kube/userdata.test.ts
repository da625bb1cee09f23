// How the simulated kubeadm reads a server's user-data: the golden renderings of the bootstrap
// renderer as input (roles, node names, endpoints, tokens, CA pins, versions, the join retry loop).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { goDuration, hostPort, parseUserData } from '../../../cloudsim/kube/userdata.js';
import { caCertHash } from '../../../src/bootstrap/join.js';
import { pki, TOKEN } from '../../support/spec-fixtures.js';

const golden = (cluster: string, file: string) => readFileSync(new URL(`../../bootstrap/golden/${cluster}/user-data/${file}`, import.meta.url), 'utf8');
const b64 = (text: string | Buffer) => Buffer.from(text).toString('base64');

test('the first control plane: init with its endpoint, token, certSANs, CA and the cluster\'s networking', () => {
  const n = parseUserData(b64(golden('calico-1.35-ha', 'control-plane-init.yaml')), 'server-name')!;
  assert.equal(n.role, 'init');
  assert.equal(n.nodeName, 'k1-5d12f-control-plane-a0000');
  assert.deepEqual(n.endpoint, { host: '10.0.0.10', port: 6443 });
  assert.equal(n.bindPort, 6443);
  assert.equal(n.version, 'v1.35.5');
  assert.deepEqual(n.certSans, ['10.0.0.10', '203.0.113.25', 'k1.example.org']);
  assert.deepEqual(n.bootstrapTokens, [{ token: TOKEN, ttlMs: 2 * 3_600_000 }]);
  assert.equal(n.ca?.cert.trim(), pki.ca.cert.trim());
  assert.equal(n.ca?.key.trim(), pki.ca.key.trim());
  assert.equal(n.providerId, 'openstack:///__INSTANCE_ID__');
  assert.deepEqual(n.cluster, { name: 'k1-5d12f', serviceSubnet: '10.254.0.0/16', dnsDomain: 'cluster.local', podSubnet: '10.100.0.0/16' });
});

test('a joining control plane and a worker: discovery endpoint, token, CA pins; the worker\'s version from its bootstrap script', () => {
  const cp = parseUserData(b64(golden('calico-1.35-ha', 'control-plane-join.yaml')), 'x')!;
  assert.deepEqual([cp.role, cp.nodeName, cp.token], ['control-plane', 'k1-5d12f-control-plane-a0001', TOKEN]);
  assert.deepEqual(cp.caCertHashes, [caCertHash(pki.ca.cert)]);
  assert.ok(cp.ca, 'control planes carry the CA key pair');
  const wk = parseUserData(b64(golden('calico-1.35-ha', 'worker.yaml')), 'x')!;
  assert.deepEqual([wk.role, wk.nodeName, wk.version, wk.minor, wk.ca], ['worker', 'k1-5d12f-worker-b0000', 'v1.35.5', '1.35', undefined]);
  assert.deepEqual(wk.endpoint, { host: '10.0.0.10', port: 6443 });
  assert.deepEqual(wk.joinLoop, { attempts: 60, sleepMs: 10_000 });
  const ovn = parseUserData(b64(golden('calico-1.36-ovn-proxy', 'worker.yaml')), 'x')!;
  assert.deepEqual([ovn.endpoint.port, ovn.version], [8443, 'v1.36.1']);
  const flannel = parseUserData(b64(golden('flannel-1.34-single', 'worker.yaml')), 'x')!;
  assert.equal(flannel.version, 'v1.34.8');
});

test('without the script\'s full version only the minor its kubeadm check pins; gzip user-data is read too', () => {
  const text = golden('calico-1.35-ha', 'worker.yaml').replace(/Kubernetes v[\d.]+/g, 'Kubernetes');
  const n = parseUserData(b64(gzipSync(text)), 'x')!;
  assert.deepEqual([n.version, n.minor], [undefined, '1.35']);
});

test('user-data that is not a kubeadm node\'s is not ours', () => {
  assert.equal(parseUserData(null, 'x'), undefined);
  assert.equal(parseUserData(b64('#!/bin/sh\necho hello\n'), 'x'), undefined);
  assert.equal(parseUserData(b64('#cloud-config\npackages: [nginx]\n'), 'x'), undefined);
  assert.equal(parseUserData(b64('#cloud-config\nwrite_files: [{path: /etc/a, content: "kubeadm.k8s.io/v1beta4"}]\n'), 'x'), undefined);
});

test('Go durations and host:port', () => {
  assert.equal(goDuration('2h0m0s'), 7_200_000);
  assert.equal(goDuration('15m'), 900_000);
  assert.equal(goDuration('1h30m'), 5_400_000);
  assert.equal(goDuration('soon'), undefined);
  assert.deepEqual(hostPort('10.0.0.10:6443'), { host: '10.0.0.10', port: 6443 });
  assert.deepEqual(hostPort('[fd00::1]:8443'), { host: 'fd00::1', port: 8443 });
  assert.deepEqual(hostPort('api.example.org'), { host: 'api.example.org', port: 6443 });
});
