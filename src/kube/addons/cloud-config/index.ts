// Add-on `cloud-config`: Secret kube-system/cloud-config holding cloud.conf (and the Keystone CA) from cloudconf.ts.
// It has no labels: OCCM and Cinder CSI always need it (cloud_provider_enabled is fixed to true by the core).

import { defineAddon, ORDER } from '../framework.js';
import { KUBE_SYSTEM, meta } from '../k8s.js';

export const CLOUD_CONFIG_SECRET = 'cloud-config';

export const cloudConfigAddon = defineAddon({
  key: 'cloudConfig',
  kind: 'addon',
  name: 'cloud-config',
  order: ORDER.cloudConfig,
  labels: {},
  resolve: () => ({ secret: CLOUD_CONFIG_SECRET }),
  enabled: () => true,
  render: (_spec, ctx) => [
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: meta(CLOUD_CONFIG_SECRET, KUBE_SYSTEM),
      type: 'Opaque',
      data: Object.fromEntries(Object.entries(ctx.cloud.secretData).map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('base64')])),
    },
  ],
});
