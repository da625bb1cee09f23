// Add-on `cloud-config`: Secret kube-system/cloud-config holding cloud.conf (and the Keystone CA) from cloudconf.ts.
// It has no labels: OCCM and Cinder CSI always need it (cloud_provider_enabled is fixed to true by the core).

import { defineAddon, ORDER } from '../framework.js';
import { KUBE_SYSTEM, meta, secret } from '../k8s.js';

export const CLOUD_CONFIG_SECRET = 'cloud-config';

export const cloudConfigAddon = defineAddon({
  key: 'cloudConfig',
  kind: 'addon',
  name: 'cloud-config',
  order: ORDER.cloudConfig,
  labels: {},
  resolve: () => ({ secret: CLOUD_CONFIG_SECRET }),
  enabled: () => true,
  render: (_spec, ctx) => [secret(meta(CLOUD_CONFIG_SECRET, KUBE_SYSTEM), ctx.cloud.secretData)],
});
