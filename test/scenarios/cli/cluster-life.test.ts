// Issue 7 items 2 and 3 with real workers: the real `openstack coe` CLI creates a cluster and polls
// it to CREATE_COMPLETE (what `--wait`-style scripts do), fetches its kubeconfig with
// `cluster config`, and kubectl reads the cluster's Nodes over TLS with that kubeconfig's client
// certificate; then resize, upgrade and delete, each polled to its end, leaving nothing in the cloud.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { access, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse, stringify } from 'yaml';
import { cliFor, type Cli } from '../../support/cli.js';
import { leftovers, servers, withHarness, type Harness } from '../../workers/lifecycle-support.js';

const run = promisify(execFile);
const KUBECTL = '/usr/bin/kubectl';

let h: Harness;
let cli: Cli;
withHarness(async (x) => {
  h = x;
  await ensureKubectl();
  const port = (h.t.keystone.app.server.address() as { port: number }).port;
  cli = await cliFor(`http://127.0.0.1:${port}/v3`);
  for (const [name, tag] of [['life-135', 'v1.35.1'], ['life-136', 'v1.36.0']] as const) {
    await cli.json('demo', ['coe', 'cluster', 'template', 'create', name, '--coe', 'kubernetes', '--image', 'ubuntu-24.04', '--external-network', 'public',
      '--flavor', 'm1.small', '--master-flavor', 'm1.medium', '--network-driver', 'calico', '--master-lb-enabled', '--floating-ip-enabled', '--labels', `kube_tag=${tag}`]);
  }
}, { listen: true });
after(async () => {
  await cli?.close();
});

/** kubectl is part of the test toolchain (Debian's kubernetes-client): installed when missing. */
async function ensureKubectl(): Promise<void> {
  if (await access(KUBECTL).then(() => true, () => false)) return;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  await run('apt-get', ['install', '-y', '-q', 'kubernetes-client'], { env, timeout: 900_000 }).catch(async () => {
    await run('apt-get', ['update', '-q'], { env, timeout: 600_000 });
    await run('apt-get', ['install', '-y', '-q', 'kubernetes-client'], { env, timeout: 900_000 });
  });
}

/** Polls `cluster show -f value -c status` while the status is `busy`, as a waiting script does; the status it ended in. */
async function waitWhile(name: string, busy: string, timeoutMs = 180_000): Promise<string> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const r = await cli.run('demo', ['coe', 'cluster', 'show', name, '-f', 'value', '-c', 'status']);
    assert.equal(r.code, 0, r.stderr);
    const status = r.stdout.trim();
    if (status !== busy) return status;
    assert.ok(Date.now() < end, `${name} still ${busy}`);
    await new Promise((res) => setTimeout(res, 300));
  }
}

const show = (name: string) => cli.json<Record<string, any>>('demo', ['coe', 'cluster', 'show', name]); // eslint-disable-line @typescript-eslint/no-explicit-any

/** kubectl against the cluster's API through the simulator's route to it, with the kubeconfig's files. */
async function kubectl(config: string, apiAddress: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const url = new URL(apiAddress);
  const target = h.t.cloud!.sims.kube.resolve(url.hostname, Number(url.port));
  assert.ok(target, `the simulator routes ${apiAddress}`);
  // The address is simulated: kubectl connects to the local listener and checks the certificate for the cluster's address.
  const argv = ['--kubeconfig', config, '--server', `https://${target.host}:${target.port}`, '--tls-server-name', url.hostname, ...args];
  return run(KUBECTL, argv, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir() } }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' }),
  );
}

test('create → CREATE_COMPLETE, cluster config accepted over TLS, resize, upgrade, delete: all through the CLI', { timeout: 600_000 }, async () => {
  const created = await cli.run('demo', ['coe', 'cluster', 'create', 'life', '--cluster-template', 'life-135', '--master-count', '1', '--node-count', '1']);
  assert.equal(created.code, 0, created.stderr);
  const uuid = /Request to create cluster ([0-9a-f-]{36}) accepted/.exec(created.stdout)![1]!;
  assert.equal(await waitWhile('life', 'CREATE_IN_PROGRESS'), 'CREATE_COMPLETE', JSON.stringify(await show('life')));
  let c = await show('life');
  assert.match(c.api_address, /^https:\/\/\d+\.\d+\.\d+\.\d+:6443$/);
  assert.equal(c.coe_version, 'v1.35.1');
  assert.equal(c.master_addresses.length, 1);
  assert.equal(c.node_addresses.length, 1);
  assert.equal(c.status_reason, null);

  // cluster config: the kubeconfig names the cluster's API, its certificate is the cluster CA's, and the API accepts it.
  const dir = await mkdtemp(join(tmpdir(), 'coe-life-'));
  const cfg = await cli.run('demo', ['coe', 'cluster', 'config', 'life', '--dir', dir, '--output-certs']);
  assert.equal(cfg.code, 0, cfg.stderr);
  const config = join(dir, 'config');
  const kubeconfig = parse(await readFile(config, 'utf8'));
  assert.equal(kubeconfig.clusters[0].cluster.server, c.api_address);
  assert.match((await run('openssl', ['verify', '-CAfile', join(dir, 'ca.pem'), join(dir, 'cert.pem')])).stdout, /OK/);
  const ca = await cli.run('demo', ['coe', 'ca', 'show', 'life']);
  assert.equal(ca.stdout.trim(), (await readFile(join(dir, 'ca.pem'), 'utf8')).trim(), 'the kubeconfig trusts the cluster CA');
  const nodes = await kubectl(config, c.api_address, ['get', '--raw', '/api/v1/nodes']);
  assert.equal(nodes.code, 0, nodes.stderr);
  const names = (JSON.parse(nodes.stdout) as { items: { metadata: { name: string } }[] }).items.map((n) => n.metadata.name).sort();
  assert.deepEqual(names, [...servers(h, uuid).keys()].sort(), 'a Node per server');
  // The same request with a certificate the cluster CA did not sign is refused.
  const stranger = join(dir, 'stranger');
  await run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${stranger}.key`, '-out', `${stranger}.pem`, '-days', '1', '-subj', '/O=system:masters/CN=admin']);
  const user = kubeconfig.users[0].user as Record<string, string>;
  for (const k of Object.keys(user)) if (k.startsWith('client-')) delete user[k];
  user['client-certificate-data'] = (await readFile(`${stranger}.pem`)).toString('base64');
  user['client-key-data'] = (await readFile(`${stranger}.key`)).toString('base64');
  await writeFile(`${stranger}.config`, stringify(kubeconfig));
  const refused = await kubectl(`${stranger}.config`, c.api_address, ['get', '--raw', '/api/v1/nodes']);
  assert.notEqual(refused.code, 0, 'a foreign certificate is refused');
  assert.match(refused.stderr, /Unauthorized|bad certificate|unknown certificate authority/i, refused.stderr);

  const resized = await cli.run('demo', ['coe', 'cluster', 'resize', 'life', '2']);
  assert.match(resized.stdout, /Request to resize cluster life has been accepted/);
  assert.equal(await waitWhile('life', 'UPDATE_IN_PROGRESS'), 'UPDATE_COMPLETE');
  assert.equal((await show('life')).node_addresses.length, 2);

  const upgraded = await cli.run('demo', ['coe', 'cluster', 'upgrade', 'life', 'life-136']);
  assert.match(upgraded.stdout, /Request to upgrade cluster life has been accepted/);
  assert.equal(await waitWhile('life', 'UPDATE_IN_PROGRESS'), 'UPDATE_COMPLETE');
  c = await show('life');
  assert.equal(c.coe_version, 'v1.36.0');
  assert.equal(c.node_addresses.length, 2);

  const deleted = await cli.run('demo', ['coe', 'cluster', 'delete', 'life']);
  assert.match(deleted.stdout, /Request to delete cluster life has been accepted/);
  const end = Date.now() + 120_000;
  for (;;) {
    const r = await cli.run('demo', ['coe', 'cluster', 'show', 'life']);
    if (r.code !== 0) {
      assert.match(r.stderr, /Cluster life could not be found/);
      break;
    }
    assert.ok(Date.now() < end, 'the cluster is gone');
  }
  assert.deepEqual(leftovers(h).map((x) => `${x.service}:${x.type}:${x.id}`), [], 'nothing left in the cloud');
});
