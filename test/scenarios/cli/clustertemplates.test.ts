// `openstack coe cluster template ...` from Debian's python3-magnumclient against the service,
// authenticating through the catalog as a user would (no endpoint override).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { cliFor, type Cli } from '../../support/cli.js';
import { testApp, type TestApp } from '../../support/app.js';

let t: TestApp;
let cli: Cli;
before(async () => {
  t = await testApp({ listen: true });
  const port = (t.keystone.app.server.address() as { port: number }).port;
  cli = await cliFor(`http://127.0.0.1:${port}/v3`);
});
after(async () => {
  await cli.close();
  await t.close();
});

const create = ['coe', 'cluster', 'template', 'create', '--coe', 'kubernetes', '--image', 'ubuntu-24.04', '--external-network', 'public'];

test('create, list, show, update and delete a template with the real CLI', { timeout: 300_000 }, async () => {
  const ct = await cli.json('demo', [...create, 'k8s-cli', '--labels', 'kube_tag=v1.35.0,cni=calico', '--master-lb-enabled', '--tag', 'gold']);
  assert.equal(ct.name, 'k8s-cli');
  assert.equal(ct.coe, 'kubernetes');
  assert.equal(ct.flavor_id, 'm1.medium', 'the client sends its default flavor');
  assert.equal(ct.dns_nameserver, '8.8.8.8');
  assert.equal(ct.master_lb_enabled, true);
  assert.equal(ct.tags, 'gold');
  assert.deepEqual(ct.labels, { kube_tag: 'v1.35.0', cni: 'calico' });

  const list = await cli.json<{ uuid: string; name: string }[]>('demo', ['coe', 'cluster', 'template', 'list']);
  assert.deepEqual(list.map((c) => c.name), ['k8s-cli']);
  const paged = await cli.json<{ uuid: string }[]>('demo', ['coe', 'cluster', 'template', 'list', '--limit', '1']);
  assert.equal(paged.length, 1);

  const shown = await cli.json('demo', ['coe', 'cluster', 'template', 'show', 'k8s-cli']);
  assert.equal(shown.uuid, ct.uuid);

  const updated = await cli.json('demo', ['coe', 'cluster', 'template', 'update', 'k8s-cli', 'replace', 'labels=kube_tag=v1.36.0', 'name=k8s-cli-2', 'docker_volume_size=20']);
  assert.equal(updated.name, 'k8s-cli-2');
  assert.deepEqual(updated.labels, { kube_tag: 'v1.36.0' });
  assert.equal(updated.docker_volume_size, 20);
  const removed = await cli.json('demo', ['coe', 'cluster', 'template', 'update', ct.uuid, 'remove', 'docker_volume_size']);
  assert.equal(removed.docker_volume_size, '-', 'magnumclient prints None as -');

  const del = await cli.run('demo', ['coe', 'cluster', 'template', 'delete', 'k8s-cli-2']);
  assert.equal(del.code, 0, del.stderr);
  assert.match(del.stdout, /Request to delete cluster template k8s-cli-2 has been accepted\./);
  const gone = await cli.run('demo', ['coe', 'cluster', 'template', 'show', ct.uuid]);
  assert.notEqual(gone.code, 0);
  assert.match(gone.stderr, new RegExp(`ClusterTemplate ${ct.uuid} could not be found \\(HTTP 404\\) \\(Request-ID: req-[0-9a-f-]{36}\\)`));
});

test('the errors users see: unsupported COE, policy, other project, ambiguous name', { timeout: 300_000 }, async () => {
  const mesos = await cli.run('demo', ['coe', 'cluster', 'template', 'create', 'm', '--coe', 'mesos', '--image', 'x', '--external-network', 'public']);
  assert.notEqual(mesos.code, 0);
  assert.match(mesos.stderr, /Requested COE type mesos is not supported \(HTTP 400\)/);

  const reader = await cli.run('demo-reader', [...create, 'nope']);
  assert.match(reader.stderr, /Policy doesn't allow clustertemplate:create to be performed \(HTTP 403\)/);

  const mine = await cli.json('demo', [...create, 'twin']);
  const other = await cli.run('other', ['coe', 'cluster', 'template', 'show', mine.uuid]);
  assert.match(other.stderr, /could not be found \(HTTP 404\)/);
  const readerList = await cli.json<{ uuid: string }[]>('demo-reader', ['coe', 'cluster', 'template', 'list']);
  assert.ok(readerList.some((c) => c.uuid === mine.uuid), 'a reader of the project sees its templates');

  await cli.json('demo', [...create, 'twin']);
  const ambiguous = await cli.run('demo', ['coe', 'cluster', 'template', 'show', 'twin']);
  assert.match(ambiguous.stderr, /Multiple cluster templates exist with same name\. Please use the cluster template uuid instead\. \(HTTP 409\)|Multiple cluster templates exist with same name \(HTTP 409\)/);

  const publish = await cli.run('demo', [...create, 'pub', '--public']);
  assert.match(publish.stderr, /Not authorized to set public or hidden flag for cluster template \(HTTP 403\)/);
  const adminPub = await cli.json('admin', [...create, 'pub', '--public']);
  assert.equal(adminPub.public, true);
  const seen = await cli.json<{ uuid: string }[]>('other', ['coe', 'cluster', 'template', 'list']);
  assert.ok(seen.some((c) => c.uuid === adminPub.uuid), 'a public template is listed for every project');
});
