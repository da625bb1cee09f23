// Shared set-up of the add-on tests: a parsed spec plus the cloud material render-all would pass.

import { renderCloudConfig } from '../../src/bootstrap/cloudconf.js';
import { renderAddons, type AddonContext, type RenderedAddon } from '../../src/bootstrap/addons/framework.js';
import { addons } from '../../src/bootstrap/addons/index.js';
import { parseClusterSpec } from '../../src/cluster-spec/parse.js';
import type { ClusterSpec } from '../../src/cluster-spec/types.js';
import { input, keystoneCa } from './spec-fixtures.js';

export function contextFor(spec: ClusterSpec, withCa = true): AddonContext {
  const cloud = renderCloudConfig(
    spec,
    { authUrl: 'https://keystone.example.org:5000/v3', region: 'RegionOne', applicationCredentialId: 'id', applicationCredentialSecret: 'secret', ...(withCa ? { caCertPem: keystoneCa } : {}) },
    { floatingNetworkId: 'ext', subnetId: 'subnet', networkName: 'net' },
  );
  return { cloud };
}

export function rendered(over: Parameters<typeof input>[0] = {}): { spec: ClusterSpec; warnings: string[]; addons: RenderedAddon[] } {
  const { spec, warnings } = parseClusterSpec(input(over));
  return { spec, warnings, addons: renderAddons(addons(), spec, contextFor(spec)) };
}

export function addon(addons: readonly RenderedAddon[], name: string): RenderedAddon {
  const a = addons.find((x) => x.name === name);
  if (!a) throw new Error(`add-on ${name} not rendered (have ${addons.map((x) => x.name).join(', ')})`);
  return a;
}

export function find<T = Record<string, unknown>>(a: RenderedAddon, kind: string, name: string): T {
  const o = a.objects.find((x) => x.kind === kind && x.metadata.name === name);
  if (!o) throw new Error(`${a.name}: no ${kind}/${name}`);
  return o as unknown as T;
}
