// The module registry: the core sections' modules in parse order (the features' core modules before node-ops),
// the add-ons' modules after them, and each label owned by exactly one module.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addons } from '../../src/bootstrap/addons/index.js';
import { addonModules, coreModules, labelOwners } from '../../src/cluster-spec/registry.js';
import { defineModule, type FeatureModule } from '../../src/cluster-spec/module.js';
import { bool, label } from '../../src/cluster-spec/labels/types.js';

test('core modules in parse order: nodes, kubernetes, network, octavia, apiServer, cloudProvider, the features\' (auto-healing, auto-scaling, KMS), nodeOps', () => {
  assert.deepEqual(coreModules().map((m) => m.key), ['nodes', 'kubernetes', 'network', 'octavia', 'apiServer', 'cloudProvider', 'autoHealing', 'autoScaling', 'kms', 'nodeOps']);
  assert.ok(coreModules().every((m) => m.kind === 'core'));
  assert.equal(coreModules(), coreModules(), 'built once');
});

test('add-on modules are the registered add-ons, in apply order', () => {
  assert.deepEqual(addonModules(), addons());
  assert.ok(addonModules().every((m) => m.kind === 'addon'));
  assert.deepEqual(addonModules().map((m) => m.key), ['cloudConfig', 'occm', 'cniCalico', 'cniFlannel', 'cinderCsi', 'manilaCsi', 'metricsServer', 'dnsAutoscaler', 'keystoneAuth', 'ingress', 'externalDns', 'dashboard', 'monitoring']);
});

test('labelOwners: each label to its module; duplicate labels are refused', () => {
  const owners = labelOwners([...coreModules(), ...addonModules()]);
  assert.equal(owners.get('kube_tag')?.key, 'kubernetes');
  assert.equal(owners.get('calico_tag')?.key, 'cniCalico');
  assert.equal(owners.get('barbican_kms_enabled')?.key, 'kms');
  assert.equal(owners.get('banana'), undefined);
  const clash = defineModule({ key: 'x', kind: 'addon', labels: { kube_tag: label(bool, '') }, resolve: () => null });
  assert.throws(() => labelOwners([...coreModules(), clash as unknown as FeatureModule]), /kube_tag is declared by both kubernetes and x/);
});
