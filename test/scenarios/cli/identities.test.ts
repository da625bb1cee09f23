// Four identities through the real `openstack coe` CLI: a member of project A (demo), a member of
// project B (other), a reader of A (demo-reader) and the cloud admin. B sees nothing of A's, the
// reader reads and is refused every write, the admin sees every project and manages quotas.
// Also the output formats: -f json, -f value and -c where the client offers them, the fixed
// tables of `quotas` and `stats` (plain Commands in magnumclient 4.0.0: no -f, no -c) where not.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { cliFor, type Cli, type CliResult } from '../../support/cli.js';
import { testApp, type TestApp, type User } from '../../support/app.js';
import { settleCluster } from '../../support/settle.js';

let t: TestApp;
let cli: Cli;
let projectA: string;
let projectB: string;
let a1: string;
let b1: string;

before(async () => {
  t = await testApp({ listen: true });
  const port = (t.keystone.app.server.address() as { port: number }).port;
  cli = await cliFor(`http://127.0.0.1:${port}/v3`);
  projectA = t.keystone.state.projectId('demo');
  projectB = t.keystone.state.projectId('other');
  await template('demo', 'a-tpl');
  await template('demo', 'a-next', 'v1.35.1');
  await template('other', 'b-tpl');
  await template('other', 'b-spare');
  a1 = await cluster('demo', 'a1', 'a-tpl');
  b1 = await cluster('other', 'b1', 'b-tpl');
});
after(async () => {
  await cli.close();
  await t.close();
});

async function template(user: User, name: string, kube = 'v1.34.2'): Promise<void> {
  const payload = { name, coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', labels: { kube_tag: kube } };
  const r = await t.as(user, { method: 'POST', url: '/v1/clustertemplates', payload });
  assert.equal(r.statusCode, 201, r.body);
}

async function cluster(user: User, name: string, tpl: string): Promise<string> {
  const r = await t.as(user, { method: 'POST', url: '/v1/clusters', payload: { name, cluster_template_id: tpl, node_count: 2 } });
  assert.equal(r.statusCode, 202, r.body);
  await settleCluster(t.app, r.json().uuid);
  return r.json().uuid;
}

const get = async (user: User, url: string) => (await t.as(user, { method: 'GET', url })).json();

/** `openstack coe <args>` as `user` for each args list, three Python processes at a time, results in order. */
async function coe<const C extends readonly (readonly string[])[]>(user: User, calls: C): Promise<{ -readonly [K in keyof C]: CliResult }> {
  const out: CliResult[] = [];
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < calls.length; i = next++) out[i] = await cli.run(user, ['coe', ...calls[i]!]);
  };
  await Promise.all([lane(), lane(), lane()]);
  return out as { -readonly [K in keyof C]: CliResult };
}
const json = (r: CliResult) => {
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
};

/** The CLI's one-line error: Magnum's title, the status, the request id. */
const failed = (r: CliResult, title: string, status: number) => {
  assert.notEqual(r.code, 0, r.stdout);
  const esc = title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  assert.match(r.stderr, new RegExp(`^${esc} \\(HTTP ${status}\\) \\(Request-ID: req-[0-9a-f-]{36}\\)$`, 'm'));
};
const lines = (r: CliResult) => {
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.trim().split('\n').filter(Boolean).sort();
};
/** The rows of a prettytable the client printed (header first). */
const table = (r: CliResult): string[][] => {
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.split('\n').filter((l) => l.startsWith('|')).map((l) => l.split('|').slice(1, -1).map((c) => c.trim()));
};
const ok = (r: CliResult, out: RegExp) => {
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, out);
};
/** A Field/Value table as an object. */
const dict = (r: CliResult) => Object.fromEntries(table(r).slice(1));

test('project B sees none of project A’s clusters or private templates', { timeout: 300_000 }, async () => {
  const [clusters, templates, show, update, del, ngList, config, tplShow, tplUpdate, tplDelete, create, stats] = await coe('other', [
    ['cluster', 'list', '-f', 'value', '-c', 'name'],
    ['cluster', 'template', 'list', '-f', 'value', '-c', 'name'],
    ['cluster', 'show', 'a1'],
    ['cluster', 'update', 'a1', 'replace', 'node_count=3'],
    ['cluster', 'delete', 'a1'],
    ['nodegroup', 'list', 'a1'],
    ['cluster', 'config', a1],
    ['cluster', 'template', 'show', 'a-tpl'],
    ['cluster', 'template', 'update', 'a-tpl', 'replace', 'name=mine'],
    ['cluster', 'template', 'delete', 'a-tpl'],
    ['cluster', 'create', 'x', '--cluster-template', 'a-tpl'],
    ['stats', 'list', projectA],
  ]);
  assert.deepEqual(lines(clusters), ['b1']);
  assert.deepEqual(lines(templates), ['b-spare', 'b-tpl']);
  for (const r of [show, update, del, ngList]) failed(r, 'Cluster a1 could not be found', 404);
  failed(config, `Cluster ${a1} could not be found`, 404);
  for (const r of [tplShow, tplUpdate, create]) failed(r, 'ClusterTemplate a-tpl could not be found', 404);
  // `template delete` reports per template on stdout and carries on.
  assert.match(tplDelete.stdout, /^Delete for cluster template a-tpl failed: ClusterTemplate a-tpl could not be found \(HTTP 404\)/m);
  failed(stats, 'Not authorized', 403);

  // Nothing of A's changed.
  const c = await get('demo', `/v1/clusters/${a1}`);
  assert.deepEqual([c.name, c.node_count, c.status], ['a1', 2, 'CREATE_COMPLETE']);
  assert.equal((await get('demo', '/v1/clustertemplates/a-tpl')).name, 'a-tpl');
  assert.equal((await get('demo', '/v1/clusters')).clusters.length, 1, 'B created nothing in A');
});

test('a reader of project A lists and shows, and is refused every write', { timeout: 300_000 }, async () => {
  const [clusters, show, templates, tplShow, ngList, ngShow, stats, quota] = await coe('demo-reader', [
    ['cluster', 'list', '-f', 'value', '-c', 'name', '-c', 'status'],
    ['cluster', 'show', 'a1', '-f', 'json', '-c', 'name', '-c', 'node_count', '-c', 'project_id'],
    ['cluster', 'template', 'list', '-f', 'json'],
    ['cluster', 'template', 'show', 'a-tpl', '-f', 'value', '-c', 'name', '-c', 'public'],
    ['nodegroup', 'list', 'a1', '-f', 'json', '-c', 'name', '-c', 'node_count', '-c', 'role'],
    ['nodegroup', 'show', 'a1', 'default-worker', '-f', 'value', '-c', 'role', '-c', 'node_count'],
    ['stats', 'list', projectA],
    ['quotas', 'show', '--project-id', projectA, '--resource', 'Cluster'],
  ]);
  assert.deepEqual(lines(clusters), ['a1 CREATE_COMPLETE']);
  assert.deepEqual(json(show), { name: 'a1', node_count: 2, project_id: projectA });
  assert.deepEqual(json(templates).map((x: { name: string }) => x.name).sort(), ['a-next', 'a-tpl']);
  // -f value prints the chosen columns in the client's own field order, not in the order of -c.
  assert.deepEqual(tplShow.stdout.trim().split('\n'), ['False', 'a-tpl']);
  assert.deepEqual(json(ngList).sort((x: { name: string }, y: { name: string }) => x.name.localeCompare(y.name)), [
    { name: 'default-master', node_count: 1, role: 'master' },
    { name: 'default-worker', node_count: 2, role: 'worker' },
  ]);
  assert.deepEqual(ngShow.stdout.trim().split('\n'), ['2', 'worker']);
  assert.deepEqual(dict(stats), { clusters: '1', nodes: '3' });
  assert.equal(dict(quota).project_id, projectA);

  // (cluster create and template create by the reader: cli-clusters / cli-clustertemplates.)
  const [update, resize, upgrade, del, ngCreate, ngUpdate, ngDelete, tplUpdate, tplDelete, rotate, quotaCreate] = await coe('demo-reader', [
    ['cluster', 'update', 'a1', 'replace', 'node_count=3'],
    ['cluster', 'resize', 'a1', '3'],
    ['cluster', 'upgrade', 'a1', 'a-next'],
    ['cluster', 'delete', 'a1'],
    ['nodegroup', 'create', 'a1', 'r'],
    ['nodegroup', 'update', 'a1', 'default-worker', 'replace', 'max_node_count=5'],
    ['nodegroup', 'delete', 'a1', 'default-worker'],
    ['cluster', 'template', 'update', 'a-tpl', 'replace', 'name=r'],
    ['cluster', 'template', 'delete', 'a-tpl'],
    ['ca', 'rotate', 'a1'],
    ['quotas', 'create', '--project-id', projectA, '--resource', 'Cluster', '--hard-limit', '9'],
  ]);
  const policy = (rule: string) => `Policy doesn't allow ${rule} to be performed`;
  failed(update, policy('cluster:update'), 403);
  failed(resize, policy('cluster:resize'), 403);
  failed(upgrade, policy('cluster:upgrade'), 403);
  failed(del, policy('cluster:delete'), 403);
  failed(ngCreate, policy('nodegroup:create'), 403);
  failed(ngUpdate, policy('nodegroup:update'), 403);
  failed(ngDelete, policy('nodegroup:delete'), 403);
  failed(tplUpdate, policy('clustertemplate:update'), 403);
  failed(rotate, policy('certificate:rotate_ca'), 403);
  assert.match(tplDelete.stdout, new RegExp(`^Delete for cluster template a-tpl failed: ${policy('clustertemplate:delete')} \\(HTTP 403\\)`, 'm'));
  // `quotas create` prints its failure on stdout and exits 0.
  assert.match(quotaCreate.stdout, new RegExp(`^Create quota for project_id ${projectA} resource Cluster failed: ${policy('quota:create')} \\(HTTP 403\\)`, 'm'));

  const c = await get('demo', `/v1/clusters/${a1}`);
  assert.deepEqual([c.node_count, c.status], [2, 'CREATE_COMPLETE']);
  assert.equal((await get('demo', `/v1/clusters/${a1}/nodegroups`)).nodegroups.length, 2);
  assert.equal((await get('admin', `/v1/quotas/${projectA}/Cluster`)).id, undefined, 'no quota row was written');
});

test('the admin sees and acts on every project, and manages quotas', { timeout: 300_000 }, async () => {
  const run = (args: string[]) => cli.run('admin', ['coe', ...args]);
  const [clusters, templates, showB, ngB, statsB, update] = await coe('admin', [
    ['cluster', 'list', '-f', 'json', '-c', 'uuid', '-c', 'name'],
    ['cluster', 'template', 'list', '-f', 'value', '-c', 'name'],
    ['cluster', 'show', 'b1', '-f', 'value', '-c', 'project_id', '-c', 'uuid'],
    ['nodegroup', 'list', 'b1', '-f', 'value', '-c', 'name', '-c', 'node_count'],
    ['stats', 'list', projectB],
    ['cluster', 'template', 'update', 'b-spare', 'replace', 'docker_volume_size=30', '-f', 'json', '-c', 'docker_volume_size', '-c', 'name'],
  ]);
  assert.deepEqual(json(clusters).map((x: { name: string; uuid: string }) => [x.name, x.uuid]).sort(), [['a1', a1], ['b1', b1]]);
  assert.deepEqual(lines(templates), ['a-next', 'a-tpl', 'b-spare', 'b-tpl']);
  assert.deepEqual(showB.stdout.trim().split('\n'), [b1, projectB]);
  assert.deepEqual(lines(ngB), ['default-master 1', 'default-worker 2']);
  assert.deepEqual(dict(statsB), { clusters: '1', nodes: '3' }, 'another project’s stats');
  assert.deepEqual(json(update), { docker_volume_size: 30, name: 'b-spare' });
  ok(await run(['cluster', 'update', 'b1', 'replace', 'node_count=3']), /Request to update cluster b1 has been accepted/);
  assert.equal((await get('other', `/v1/clusters/${b1}`)).node_count, 3, 'B sees the admin’s change');
  assert.equal((await get('other', '/v1/clustertemplates/b-spare')).docker_volume_size, 30);

  // Quotas: only the admin writes them; a member reads its own project's, not another's.
  const created = await run(['quotas', 'create', '--project-id', projectA, '--resource', 'Cluster', '--hard-limit', '2']);
  assert.deepEqual([dict(created).project_id, dict(created).hard_limit, dict(created).resource], [projectA, '2', 'Cluster']);
  const [[all, own, jsonList], [theirs]] = await Promise.all([
    coe('admin', [['quotas', 'list', '--all-tenants'], ['quotas', 'list'], ['quotas', 'list', '-f', 'json']]),
    coe('other', [['quotas', 'show', '--project-id', projectA, '--resource', 'Cluster']]),
  ]);
  const [header, ...rows] = table(all);
  assert.deepEqual(header, ['project_id', 'resource', 'hard_limit']);
  assert.deepEqual(rows, [[projectA, 'Cluster', '2']]);
  assert.deepEqual(table(own).slice(1), [], 'without --all-tenants only the admin project, which has none');
  assert.notEqual(jsonList.code, 0);
  assert.match(jsonList.stderr, /unrecognized arguments: -f json/, 'quotas commands have no output formats');
  failed(theirs, 'Not authorized', 403);
  const updated = await run(['quotas', 'update', '--project-id', projectA, '--resource', 'Cluster', '--hard-limit', '5']);
  assert.equal(dict(updated).hard_limit, '5');
  const [mine] = await coe('demo', [['quotas', 'show', '--project-id', projectA, '--resource', 'Cluster']]);
  assert.deepEqual([dict(mine).project_id, dict(mine).hard_limit], [projectA, '5']);
  // (quotas show and delete by the admin: cli-clusters.)
});
