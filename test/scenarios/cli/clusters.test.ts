// `openstack coe cluster|nodegroup|ca|quotas|stats|service ...` from Debian's python3-magnumclient
// against the API (no workers: a test plays the worker's last step with settleCluster), through the
// catalog as a user would.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startWorker } from '../../../workers/main.js';
import { cliFor, type Cli } from '../../support/cli.js';
import { testApp, type TestApp } from '../../support/app.js';
import { settleCluster } from '../../support/settle.js';

const run = promisify(execFile);
let t: TestApp;
let cli: Cli;
let worker: { close(): Promise<void> };

before(async () => {
  t = await testApp({ listen: true });
  const port = (t.keystone.app.server.address() as { port: number }).port;
  cli = await cliFor(`http://127.0.0.1:${port}/v3`);
  worker = await startWorker({ redisUrl: process.env.REDIS_URL!, concurrency: 1, heartbeatMs: 200, prefix: t.config.queuePrefix });
  for (const [name, kube] of [['k8s', 'v1.34.2'], ['k8s-next', 'v1.35.1']] as const) {
    await cli.json('demo', ['coe', 'cluster', 'template', 'create', name, '--coe', 'kubernetes', '--image', 'ubuntu-24.04', '--external-network', 'public', '--labels', `kube_tag=${kube}`]);
  }
});
after(async () => {
  await worker.close();
  await cli.close();
  await t.close();
});

const accepted = /Request to create cluster ([0-9a-f-]{36}) accepted/;

test('cluster create, list, show, update, resize, upgrade and delete', { timeout: 600_000 }, async () => {
  const created = await cli.run('demo', ['coe', 'cluster', 'create', 'c1', '--cluster-template', 'k8s', '--node-count', '2', '--labels', 'extra=x', '--merge-labels']);
  assert.equal(created.code, 0, created.stderr);
  const uuid = accepted.exec(created.stdout)?.[1] ?? '';
  assert.ok(uuid, created.stdout);

  const list = await cli.json<Record<string, unknown>[]>('demo', ['coe', 'cluster', 'list']);
  assert.deepEqual(list.map((c) => [c.name, c.node_count, c.master_count, c.status]), [['c1', 2, 1, 'CREATE_IN_PROGRESS']]);
  const shown = await cli.json('demo', ['coe', 'cluster', 'show', 'c1']);
  assert.equal(shown.uuid, uuid);
  assert.deepEqual(shown.labels, { kube_tag: 'v1.34.2', extra: 'x' });
  assert.deepEqual(shown.labels_added, { extra: 'x' });

  const busy = await cli.run('demo', ['coe', 'cluster', 'update', 'c1', 'replace', 'node_count=3']);
  assert.notEqual(busy.code, 0);
  assert.match(busy.stderr, /Cluster c1 is CREATE_IN_PROGRESS: an update is not possible in that state \(HTTP 409\)/);

  await settleCluster(t.app, uuid);
  const updated = await cli.run('demo', ['coe', 'cluster', 'update', 'c1', 'replace', 'node_count=3']);
  assert.equal(updated.code, 0, updated.stderr);
  assert.match(updated.stdout, /Request to update cluster c1 has been accepted/);
  assert.equal((await cli.json('demo', ['coe', 'cluster', 'show', uuid])).node_count, 3);

  await settleCluster(t.app, uuid);
  const resized = await cli.run('demo', ['coe', 'cluster', 'resize', 'c1', '1']);
  assert.equal(resized.code, 0, resized.stderr);
  assert.match(resized.stdout, /Request to resize cluster c1 has been accepted/);

  await settleCluster(t.app, uuid);
  const upgraded = await cli.run('demo', ['coe', 'cluster', 'upgrade', 'c1', 'k8s-next']);
  assert.equal(upgraded.code, 0, upgraded.stderr);
  assert.match(upgraded.stdout, /Request to upgrade cluster c1 has been accepted/);
  assert.equal((await cli.json('demo', ['coe', 'cluster', 'show', 'c1'])).status, 'UPDATE_IN_PROGRESS');

  const deleted = await cli.run('demo', ['coe', 'cluster', 'delete', 'c1']);
  assert.equal(deleted.code, 0, deleted.stderr);
  assert.match(deleted.stdout, /Request to delete cluster c1 has been accepted/);
  assert.equal((await cli.json('demo', ['coe', 'cluster', 'show', uuid])).status, 'DELETE_IN_PROGRESS');
});

test('the errors users see: unknown template, policy, other project, ambiguous name', { timeout: 600_000 }, async () => {
  const unknown = await cli.run('demo', ['coe', 'cluster', 'create', 'x', '--cluster-template', 'nope']);
  assert.match(unknown.stderr, /ClusterTemplate nope could not be found \(HTTP 404\)/);
  const reader = await cli.run('demo-reader', ['coe', 'cluster', 'create', 'x', '--cluster-template', 'k8s']);
  assert.match(reader.stderr, /Policy doesn't allow cluster:create to be performed \(HTTP 403\)/);
  const a = accepted.exec((await cli.run('demo', ['coe', 'cluster', 'create', 'twin', '--cluster-template', 'k8s'])).stdout)![1]!;
  await cli.run('demo', ['coe', 'cluster', 'create', 'twin', '--cluster-template', 'k8s']);
  const ambiguous = await cli.run('demo', ['coe', 'cluster', 'show', 'twin']);
  assert.match(ambiguous.stderr, /Multiple clusters exist with same name.*\(HTTP 409\)/);
  const other = await cli.run('other', ['coe', 'cluster', 'show', a]);
  assert.match(other.stderr, new RegExp(`Cluster ${a} could not be found \\(HTTP 404\\)`));
});

test('nodegroup create, list, show, update and delete', { timeout: 600_000 }, async () => {
  const uuid = accepted.exec((await cli.run('demo', ['coe', 'cluster', 'create', 'ng', '--cluster-template', 'k8s'])).stdout)![1]!;
  await settleCluster(t.app, uuid);
  const created = await cli.run('demo', ['coe', 'nodegroup', 'create', 'ng', 'pool-a', '--node-count', '2', '--min-nodes', '1', '--max-nodes', '5', '--labels', 'zone=a']);
  assert.equal(created.code, 0, created.stderr);
  assert.match(created.stdout, /Request to create nodegroup [0-9a-f-]{36} accepted/);
  const list = await cli.json<Record<string, unknown>[]>('demo', ['coe', 'nodegroup', 'list', 'ng']);
  assert.deepEqual(list.map((n) => n.name).sort(), ['default-master', 'default-worker', 'pool-a']);
  const workers = await cli.json<Record<string, unknown>[]>('demo', ['coe', 'nodegroup', 'list', 'ng', '--role', 'worker']);
  assert.deepEqual(workers.map((n) => n.name).sort(), ['default-worker', 'pool-a']);
  const shown = await cli.json('demo', ['coe', 'nodegroup', 'show', 'ng', 'pool-a']);
  assert.equal(shown.node_count, 2);
  assert.equal(shown.max_node_count, 5);
  await settleCluster(t.app, uuid);
  const updated = await cli.run('demo', ['coe', 'nodegroup', 'update', 'ng', 'pool-a', 'replace', 'max_node_count=6']);
  assert.equal(updated.code, 0, updated.stderr);
  await settleCluster(t.app, uuid);
  const bad = await cli.run('demo', ['coe', 'nodegroup', 'update', 'ng', 'pool-a', 'replace', 'min_node_count=9']);
  assert.match(bad.stderr, /\(HTTP 409\)/);
  const del = await cli.run('demo', ['coe', 'nodegroup', 'delete', 'ng', 'pool-a']);
  assert.equal(del.code, 0, del.stderr);
  const defaultDel = await cli.run('demo', ['coe', 'nodegroup', 'delete', 'ng', 'default-worker']);
  assert.match(defaultDel.stderr + defaultDel.stdout, /Deleting a default nodegroup is not supported/);
});

test('ca show, sign and rotate', { timeout: 600_000 }, async () => {
  const uuid = accepted.exec((await cli.run('demo', ['coe', 'cluster', 'create', 'pki', '--cluster-template', 'k8s'])).stdout)![1]!;
  const dir = await mkdtemp(join(tmpdir(), 'coe-ca-'));
  const shown = await cli.run('demo', ['coe', 'ca', 'show', 'pki']);
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /-----BEGIN CERTIFICATE-----/);
  await writeFile(join(dir, 'ca.pem'), shown.stdout.trim() + '\n');
  await run('openssl', ['req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'csr.pem'), '-subj', '/CN=admin/O=system:masters']);
  const signed = await cli.run('demo', ['coe', 'ca', 'sign', 'pki', join(dir, 'csr.pem')]);
  assert.equal(signed.code, 0, signed.stderr);
  await writeFile(join(dir, 'cert.pem'), signed.stdout.trim() + '\n');
  const verify = await run('openssl', ['verify', '-CAfile', join(dir, 'ca.pem'), join(dir, 'cert.pem')]);
  assert.match(verify.stdout, /OK/);
  assert.match((await run('openssl', ['x509', '-in', join(dir, 'cert.pem'), '-noout', '-subject'])).stdout, /CN ?= ?admin/);
  assert.ok((await readFile(join(dir, 'cert.pem'), 'utf8')).length > 0);
  const other = await cli.run('demo-reader', ['coe', 'ca', 'show', 'pki']);
  assert.match(other.stderr, /Policy doesn't allow certificate:get to be performed \(HTTP 403\)/);
  const early = await cli.run('demo', ['coe', 'ca', 'rotate', 'pki']);
  assert.match(early.stderr, /Updating a cluster when status is "CREATE_IN_PROGRESS" is not supported\. \(HTTP 400\)|Updating a cluster when status is "CREATE_IN_PROGRESS" is not supported \(HTTP 400\)/);
  await settleCluster(t.app, uuid);
  const rotated = await cli.run('demo', ['coe', 'ca', 'rotate', 'pki']);
  assert.equal(rotated.code, 0, rotated.stderr);
});

test('quotas, stats and service list', { timeout: 600_000 }, async () => {
  await cli.json('other', ['coe', 'cluster', 'template', 'create', 'q', '--coe', 'kubernetes', '--image', 'i', '--external-network', 'public']);
  const project = (await cli.json('other', ['token', 'issue'])).project_id as string;
  // The quotas commands print the object themselves (no -f).
  const q = await cli.run('admin', ['coe', 'quotas', 'create', '--project-id', project, '--resource', 'Cluster', '--hard-limit', '1']);
  assert.equal(q.code, 0, q.stderr);
  assert.match(q.stdout, /hard_limit\s*\|\s*1\b|'hard_limit': 1/);
  const dup = await cli.run('admin', ['coe', 'quotas', 'create', '--project-id', project, '--resource', 'Cluster', '--hard-limit', '1']);
  assert.match(dup.stderr + dup.stdout, /already exists.*\(HTTP 409\)/);
  const shown = await cli.run('admin', ['coe', 'quotas', 'show', '--project-id', project, '--resource', 'Cluster']);
  assert.match(shown.stdout, /hard_limit\s*\|\s*1\b|'hard_limit': 1/);
  const all = await cli.run('admin', ['coe', 'quotas', 'list', '--all-tenants']);
  assert.match(all.stdout, new RegExp(project));
  assert.match((await cli.run('demo', ['coe', 'quotas', 'list'])).stderr, /\(HTTP 403\)/);

  assert.match((await cli.run('other', ['coe', 'cluster', 'create', 'q1', '--cluster-template', 'q'])).stdout, accepted);
  const over = await cli.run('other', ['coe', 'cluster', 'create', 'q2', '--cluster-template', 'q']);
  assert.match(over.stderr, /Resource limit exceeded: You have reached the maximum clusters per project, 1.*\(HTTP 403\)/);
  const updated = await cli.run('admin', ['coe', 'quotas', 'update', '--project-id', project, '--resource', 'Cluster', '--hard-limit', '5']);
  assert.match(updated.stdout, /hard_limit\s*\|\s*5\b|'hard_limit': 5/);
  assert.match((await cli.run('other', ['coe', 'cluster', 'create', 'q2', '--cluster-template', 'q'])).stdout, accepted);
  const del = await cli.run('admin', ['coe', 'quotas', 'delete', '--project-id', project, '--resource', 'Cluster']);
  assert.equal(del.code, 0, del.stderr);

  const stats = await cli.run('other', ['coe', 'stats', 'list', project]);
  assert.equal(stats.code, 0, stats.stderr);
  assert.match(stats.stdout, /\| clusters \| 2 +\|/);
  assert.match(stats.stdout, /\| nodes +\| 4 +\|/);

  const services = await cli.json<Record<string, unknown>[]>('admin', ['coe', 'service', 'list']);
  assert.ok(services.some((s) => s.binary === 'magnum-conductor' && s.state === 'up'), JSON.stringify(services));
  assert.match((await cli.run('demo', ['coe', 'service', 'list'])).stderr, /\(HTTP 403\)/);
});

test('cluster config writes a kubeconfig whose client certificate the cluster CA signed', { timeout: 600_000 }, async () => {
  const uuid = accepted.exec((await cli.run('demo', ['coe', 'cluster', 'create', 'cfg', '--cluster-template', 'k8s'])).stdout)![1]!;
  await settleCluster(t.app, uuid, { apiAddress: 'https://203.0.113.20:6443' });
  const dir = await mkdtemp(join(tmpdir(), 'coe-config-'));
  const res = await cli.run('demo', ['coe', 'cluster', 'config', 'cfg', '--dir', dir, '--output-certs']);
  assert.equal(res.code, 0, res.stderr);
  assert.match(res.stdout, new RegExp(`export KUBECONFIG=${dir}/config`));
  const config = await readFile(join(dir, 'config'), 'utf8');
  assert.match(config, /server: https:\/\/203\.0\.113\.20:6443/);
  assert.match(config, /name: cfg/);
  const verify = await run('openssl', ['verify', '-CAfile', join(dir, 'ca.pem'), join(dir, 'cert.pem')]);
  assert.match(verify.stdout, /OK/);
  const subject = (await run('openssl', ['x509', '-in', join(dir, 'cert.pem'), '-noout', '-subject'])).stdout;
  assert.match(subject, /O ?= ?system:masters/);
  assert.match(subject, /CN ?= ?admin/);
  const again = await cli.run('demo', ['coe', 'cluster', 'config', 'cfg', '--dir', dir]);
  assert.notEqual(again.code, 0);
  assert.match(again.stderr + again.stdout, /config exists, aborting/);
  assert.equal((await cli.run('demo', ['coe', 'cluster', 'config', 'cfg', '--dir', dir, '--force'])).code, 0);
  // Only the creator (or an admin) may have a certificate signed: another member of the project may not.
  const reader = await cli.run('demo-reader', ['coe', 'cluster', 'config', 'cfg', '--dir', await mkdtemp(join(tmpdir(), 'coe-config-'))]);
  assert.match(reader.stderr, /Policy doesn't allow certificate:get to be performed \(HTTP 403\)/);
});

test('output formats: -f value with -c', { timeout: 600_000 }, async () => {
  accepted.exec((await cli.run('demo', ['coe', 'cluster', 'create', 'fmt', '--cluster-template', 'k8s', '--node-count', '3'])).stdout);
  const value = await cli.run('demo', ['coe', 'cluster', 'show', 'fmt', '-f', 'value', '-c', 'name', '-c', 'node_count', '-c', 'status']);
  assert.equal(value.code, 0, value.stderr);
  // The client prints the chosen columns in its own (alphabetical) order.
  assert.deepEqual(value.stdout.trim().split('\n'), ['CREATE_IN_PROGRESS', '3', 'fmt']);
  const listed = await cli.run('demo', ['coe', 'cluster', 'list', '-f', 'value', '-c', 'name']);
  assert.ok(listed.stdout.split('\n').includes('fmt'));
});
