// parseClusterSpec: the one place labels are read. The spec's defaults, what becomes of unknown, catalogued and
// deprecated labels, how module failures reach the user (a 400 naming the label), and the short name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, InvalidLabelError } from '../../src/domain/errors.js';
import { parseClusterSpec, shortName } from '../../src/cluster-spec/parse.js';
import { coreModules } from '../../src/cluster-spec/registry.js';
import { defineModule, type FeatureModule } from '../../src/cluster-spec/module.js';
import { bool, int, label } from '../../src/cluster-spec/labels/types.js';
import { VERSION_MATRIX } from '../../src/cluster-spec/versions.js';
import { labelTable } from '../../src/cluster-spec/labels/table.js';
import { input, UUID } from '../support/spec-fixtures.js';
import { labelError } from '../support/labels.js';

test('defaults: v1.35, pinned components, Magnum CIDRs, spec version', () => {
  const { spec, warnings } = parseClusterSpec(input());
  assert.equal(spec.specVersion, 1);
  assert.equal(spec.kubernetes.minor, '1.35');
  assert.equal(spec.kubernetes.version, VERSION_MATRIX['1.35'].kubernetes);
  assert.equal(spec.cloudProvider.occmTag, 'v1.35.0');
  assert.equal(spec.cloudProvider.clusterName, UUID);
  assert.equal(spec.network.podCidr, '10.100.0.0/16');
  assert.equal(spec.network.serviceCidr, '10.254.0.0/16');
  assert.equal(spec.network.subnetCidr, '10.0.0.0/24');
  assert.equal(spec.network.dnsServiceIp, '10.254.0.10');
  assert.equal(spec.apiServer.port, 6443);
  assert.deepEqual(warnings, []);
});

test('unknown and not-yet-supported labels are kept and reported, never change the spec', () => {
  const base = parseClusterSpec(input()).spec;
  const { spec, warnings } = parseClusterSpec(input({ labels: { banana: 'yes', autoscaler_tag: 'v1.35.0', kubelet_options: '--foo', draino_tag: 'abf028a' } }));
  assert.deepEqual(spec.labels.ignored, { banana: 'yes', autoscaler_tag: 'v1.35.0', kubelet_options: '--foo', draino_tag: 'abf028a' });
  assert.deepEqual({ ...spec, labels: base.labels }, base);
  assert.equal(warnings.length, 4);
  assert.match(warnings[0]!, /banana is unknown/);
  assert.match(warnings[1]!, /autoscaler_tag is not supported/);
  assert.match(warnings[2]!, /not supported/);
});

test('fields: a COE other than kubernetes is refused', () => {
  assert.throws(() => parseClusterSpec(input({ template: { coe: 'swarm' } })), (e: unknown) => e instanceof ApiError && e.id === 'unsupported_coe');
});

test('short names are DNS-safe', () => {
  assert.equal(shortName('My_Cluster.Prod', UUID), 'my-cluster-prod-5d12f');
  assert.equal(shortName('___', UUID), 'k8s-5d12f');
  assert.ok(shortName('a'.repeat(242), UUID).length <= 26);
});

test('a deprecated label warns; a module says a label is ignored only as its declaration says, which the label table shows', () => {
  const { spec, warnings } = parseClusterSpec(input({ labels: { prometheus_monitoring: 'true', boot_volume_type: 'fast' } }));
  assert.equal((spec.features.monitoring as { enabled: boolean }).enabled, true);
  assert.deepEqual(warnings, ['Label prometheus_monitoring is deprecated: use monitoring_enabled.', 'Label boot_volume_type is ignored without boot_volume_size.']);
  const table = labelTable();
  assert.match(table, /\| `boot_volume_type` \| supported \|[^\n]*\| ignored without boot_volume_size \|/);
  assert.match(table, /\| `prometheus_monitoring` \|[^\n]*\| always: deprecated, use monitoring_enabled\. \|/);
  const sloppy = defineModule({
    key: 'sloppy', kind: 'addon', labels: { sloppy_flag: label(bool, 'a flag') },
    resolve(l, ctx) {
      if (l.sloppy_flag !== undefined) ctx.ignore('sloppy_flag');
      return {};
    },
  });
  assert.throws(() => parseClusterSpec(input({ labels: { sloppy_flag: 'true' } }), [...coreModules(), sloppy as FeatureModule]), /declares no 'ignored'/);
});

test('the cluster uuid must be a UUID; the spec keeps it in lower case', () => {
  assert.throws(() => parseClusterSpec(input({ cluster: { uuid: 'not-a-uuid' } })), (e: unknown) => e instanceof ApiError && e.id === 'invalid_input' && /uuid/.test(e.message));
  const { spec } = parseClusterSpec(input({ cluster: { uuid: UUID.toUpperCase() } }));
  assert.equal(spec.cluster.uuid, UUID);
  assert.equal(spec.cluster.shortName, 'k1-5d12f');
  assert.equal(spec.cluster.name, 'k1');
});

test('label values of any JSON type are read as strings, and kept that way among the known labels', () => {
  const { spec } = parseClusterSpec(input({ network_driver: 'flannel', labels: { flannel_network_subnetlen: 26, cinder_csi_enabled: false, kube_tag: 'v1.36.1' } }));
  assert.equal(spec.network.flannel?.subnetLen, 26);
  assert.equal((spec.features.cinderCsi as { enabled: boolean }).enabled, false);
  assert.deepEqual(spec.labels.known, { flannel_network_subnetlen: '26', cinder_csi_enabled: 'false', kube_tag: 'v1.36.1' });
  assert.deepEqual(spec.labels.ignored, {});
  // No labels at all is the defaults.
  for (const labels of [null, undefined]) assert.deepEqual(parseClusterSpec({ ...input(), labels }).spec, parseClusterSpec(input()).spec);
});

test('a module\'s refusal is a 400 naming its label, with the given value or else the label\'s own; other failures pass through', () => {
  const picky = defineModule({
    key: 'picky',
    kind: 'addon',
    labels: { picky_size: label(int(0, 100), 'a size') },
    resolve(l, ctx) {
      if (l.picky_size === 13) ctx.reject('picky_size', 'Unlucky.');
      if (l.picky_size === 14) ctx.reject('picky_size', 'Rounded.', '15');
      if (l.picky_size === 99) throw new Error('a bug, not a bad label');
      return { size: l.picky_size ?? 0 };
    },
  });
  const mods = [...coreModules(), picky as unknown as FeatureModule];
  const parse = (v: string) => parseClusterSpec(input({ labels: { picky_size: v } }), mods);
  assert.throws(() => parse('13'), labelError('picky_size', /^Invalid input for label picky_size\. Value: '13'\. Unlucky\.$/));
  assert.throws(() => parse('14'), labelError('picky_size', /Value: '15'\. Rounded\./));
  assert.throws(() => parse('101'), labelError('picky_size', /Value: '101'\. Expected an integer between 0 and 100\./), 'the type refuses before the module runs');
  assert.throws(() => parse('99'), (e: unknown) => !(e instanceof InvalidLabelError) && /a bug/.test((e as Error).message));
  assert.deepEqual(parse('7').spec.features.picky, { size: 7 });
});

test('core modules fill their top-level section, add-on modules spec.features; each reads the sections resolved before it', () => {
  const seen: string[] = [];
  const core = defineModule({ key: 'extraCore', kind: 'core', labels: {}, resolve: (_l, ctx) => (seen.push(ctx.spec.kubernetes!.minor), { core: true }) });
  const addon = defineModule({ key: 'extraAddon', kind: 'addon', labels: {}, resolve: (_l, ctx) => (seen.push(String((ctx.spec as Record<string, unknown>).extraCore !== undefined)), { addon: true }) });
  const { spec } = parseClusterSpec(input({ labels: { kube_tag: 'v1.34.2' } }), [...coreModules(), core, addon] as FeatureModule[]);
  assert.deepEqual(spec.features.extraAddon, { addon: true });
  assert.equal(spec.features.extraCore, undefined);
  assert.deepEqual(seen, ['1.34', 'true']);
});

test('warnings: first each label\'s own (unknown, catalogued, deprecated) in label order, then the modules\'', () => {
  const { warnings } = parseClusterSpec(input({ labels: { zzz_unknown: '1', monitoring_retention_days: '3', prometheus_monitoring: 'false', heapster_enabled: 'true' } }));
  assert.deepEqual(warnings, [
    'Label zzz_unknown is unknown; it is kept and ignored.',
    'Label prometheus_monitoring is deprecated: use monitoring_enabled.',
    'Label heapster_enabled is not supported and is ignored: Heapster is retired upstream; metrics-server replaces it.',
    'Label monitoring_retention_days is ignored without monitoring_enabled=true.',
  ]);
});

