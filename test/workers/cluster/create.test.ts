// The create operation (workers/cluster/create.ts) as a graph: the runner accepts it (every `after` is a step
// of it), every step comes after what it needs, the features' steps sit where they say (the KMS key before the
// first control plane, the API's DNS name after its endpoint, the wildcard after it, the add-ons' checks before
// the add-ons), and a create has a deadline and runs in parallel. (Run step by step in memory against the
// simulator: test/workers/cluster/bills.test.ts and bootstrap.test.ts.)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { features } from '../../../src/features/registry.js';
import { createOperation } from '../../../workers/cluster/create.js';
import { operationRunner, type RunnerDeps } from '../../../workers/runner.js';

const names = createOperation.steps.map((s) => s.name);
const at = (name: string) => {
  const i = names.indexOf(name);
  assert.ok(i >= 0, `the create has ${name}`);
  return i;
};
const needs = (name: string) => createOperation.steps.find((s) => s.name === name)!.after ?? [];

test('the runner accepts the graph: every step it names is one of the create\'s, each name once', () => {
  assert.doesNotThrow(() => operationRunner({} as RunnerDeps, createOperation));
  assert.equal(new Set(names).size, names.length);
  assert.equal(createOperation.kind, 'create');
  assert.equal(createOperation.deadline, true);
  assert.equal(createOperation.parallel, true);
});

test('in order: each step after every step it needs', () => {
  for (const s of createOperation.steps) for (const d of s.after ?? []) assert.ok(at(d) < at(s.name), `${s.name} after ${d}`);
});

test('the core\'s steps: network and groups first, ports, the endpoint, the control planes, the workers, their servers ACTIVE (beside the API), the API, the joins, the add-ons (after their checks), readiness', () => {
  const core = ['network', 'security_groups', 'server_groups', 'ports', 'api_endpoint', 'api_listener', 'api_members', 'api_monitor', 'control_plane_init', 'workers', 'servers_active', 'api_ready', 'control_plane_join', 'addons', 'readiness'];
  assert.deepEqual(names.filter((n) => core.includes(n)), core);
  assert.deepEqual([...needs('ports')].sort(), ['network', 'security_groups']);
  assert.deepEqual([...needs('api_ready')].sort(), ['api_members', 'control_plane_init']);
  assert.deepEqual([...needs('readiness')].sort(), ['addons', 'control_plane_join', 'servers_active', 'workers']);
  assert.deepEqual([...needs('servers_active')].sort(), ['control_plane_init', 'workers'], 'nothing on the way to the API waits for it');
});

test('the features\' steps are all in, where they say they go', () => {
  for (const f of features()) for (const s of f.create ?? []) assert.ok(names.includes(s.name), `${f.name}: ${s.name}`);
  assert.ok(needs('control_plane_init').includes('kms_key'), 'the KMS key before the first control plane boots');
  assert.ok(at('api_endpoint') < at('api_dns_record') && at('api_dns_record') < at('ingress_dns_record'));
  assert.ok(needs('addons').includes('external_dns_zone') && needs('addons').includes('manila_service'), 'the add-ons\' checks before the add-ons');
});

test('every step that makes something a quota counts declares its bill; those that make nothing declare none', () => {
  const billed = createOperation.steps.filter((s) => s.bill).map((s) => s.name).sort();
  assert.deepEqual(billed, ['api_dns_record', 'api_endpoint', 'api_monitor', 'control_plane_init', 'ingress_dns_record', 'kms_key', 'network', 'ports', 'security_groups', 'server_groups', 'workers'].sort());
});
