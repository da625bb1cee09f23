// The delete operation (workers/cluster/delete.ts): its steps in order (the DNS names and load balancers before
// the servers, the KMS key and ExternalDNS's records once the servers are gone, the ports after them, the
// network from the router down, the CSI volumes and shares before the credential, the credential last), and a
// cluster made in memory against the simulator taken down by them to nothing, the credential gone from Keystone.
// (The row's removal and the whole story through the API: test/scenarios/cluster-operations.test.ts.)
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { features } from '../../../src/features/registry.js';
import { deleteOperation } from '../../../workers/cluster/delete.js';
import { operationRunner, type RunnerDeps } from '../../../workers/runner.js';
import { create, startStepCloud, stepRun, type StepCloud } from '../../support/run-context.js';

const names = deleteOperation.steps.map((s) => s.name);
const at = (name: string) => {
  const i = names.indexOf(name);
  assert.ok(i >= 0, `the delete has ${name}`);
  return i;
};

test('in order, the features\' purges where they say: a sequence the runner accepts, overtaking the cluster\'s other operations', () => {
  assert.doesNotThrow(() => operationRunner({} as RunnerDeps, deleteOperation));
  assert.equal(deleteOperation.overtakes, true);
  assert.equal(deleteOperation.parallel, undefined, 'one step after the other');
  assert.deepEqual(names, [
    'dns_records', 'ingress_dns_record', 'load_balancers', 'floating_ips', 'servers', 'node_volumes', 'kms_key', 'external_dns_records',
    'ports', 'routers', 'subnets', 'networks', 'security_groups', 'server_groups', 'volumes', 'shares', 'credential',
  ]);
  for (const f of features()) for (const s of f.delete ?? []) assert.ok(names.includes(s.name), `${f.name}: ${s.name}`);
  assert.ok(at('node_volumes') < at('kms_key') && at('kms_key') < at('ports'));
  assert.equal(names.at(-1), 'credential', 'the credential every purge uses goes last');
});

let cloud: StepCloud;
before(async () => {
  cloud = await startStepCloud();
});
after(async () => {
  await cloud.close();
});

test('a cluster with a load balancer, floating IPs and volumes, made then deleted step by step: the project holds what it held, the credential is gone', async () => {
  const r = await stepRun(cloud, { masters: 1, workers: 1, template: { master_lb_enabled: true, floating_ip_enabled: true, labels: { boot_volume_size: '10' } } });
  const baseline = r.usage();
  await create(r);
  assert.ok(r.usage().instances === 2 && r.usage().volumes === 2 && r.usage().load_balancer === 1);
  const credential = r.db.clusters.get(r.uuid)!.app_cred_id!;
  // The delete is an operation of its own: a run of it.
  r.begin('delete');
  for (const step of deleteOperation.steps) {
    r.fresh();
    await r.run(step, { timeoutMs: 120_000 });
  }
  assert.deepEqual(r.usage(), { ...baseline, zone_recordsets: r.usage().zone_recordsets });
  assert.deepEqual(await r.ledger.live(), [], 'every row the create wrote is marked deleted');
  assert.equal(cloud.keystone.state.appCreds.get(credential), undefined, 'the application credential is gone from Keystone');
  assert.deepEqual([r.db.clusters.get(r.uuid)!.app_cred_id, r.db.clusters.get(r.uuid)!.retired_app_creds], [null, []]);
});
