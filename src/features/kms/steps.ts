// Barbican KMS (label barbican_kms_enabled): the cluster's AES-256 key, stored in Barbican before the first
// control plane boots (it names the key in its plugin's cloud.conf), recorded in the ledger, found again by its
// name after a crash, and deleted with the cluster once its servers are gone. Every control plane, including
// those an upgrade or a CA rotation boots later, gets the same key.
import { randomBytes } from 'node:crypto';
import type { ConditionType } from '../../domain/cluster-status.js';
import type { KmsInput } from '../../bootstrap/user-data/inputs.js';
import { kmsCloudConf } from './render.js';
import { secretId } from '../../openstack/barbican.js';
import { StepFailure } from '../../steps/errors.js';
import type { RunContext, Step } from '../../steps/step.js';
import { clusterSpec } from '../../steps/context.js';
import { purge } from '../../steps/ensure.js';
import { required } from '../../steps/services.js';

/** The key's name: the cluster's uuid makes it ours. */
export const kmsKeyName = (uuid: string): string => `magnum-${uuid.toLowerCase()}-kms`;


export const ensureKmsKey: Step = {
  name: 'kms_key',
  before: ['control_plane_init'],
  condition: 'control_plane',
  /** The cluster's key, a secret in Barbican. */
  bill: ({ spec }) => (spec.kms.enabled ? { secrets: 1 } : {}),
  async run(ctx) {
    if (!(await clusterSpec(ctx)).kms.enabled) return;
    if ((await ctx.ledger.live('secret')).length > 0) return;
    const b = await required(() => ctx.cloud().barbican(), { reason: 'BarbicanUnavailable', label: 'barbican_kms_enabled', service: 'the key manager (Barbican)', condition: 'control_plane' });
    const name = kmsKeyName(ctx.cluster.uuid);
    const found = (await b.listSecrets(name))[0];
    let id: string;
    if (found) id = secretId(found.secret_ref);
    else {
      await ctx.checkpoint();
      id = await b.storeSecret({
        name,
        secret_type: 'symmetric',
        algorithm: 'aes',
        bit_length: 256,
        mode: 'cbc',
        payload: randomBytes(32).toString('base64'),
        payload_content_type: 'application/octet-stream',
        payload_content_encoding: 'base64',
      });
      await ctx.hooks.afterCreate?.('secret', id);
    }
    await ctx.ledger.record({ service: 'key-manager', type: 'secret', cloudId: id, name, step: 'kms_key' });
  },
};

/** The id of the cluster's key in Barbican (its ledger row). */
export async function kmsKeyId(ctx: RunContext, condition: ConditionType = 'control_plane'): Promise<string> {
  const key = (await ctx.ledger.live('secret'))[0];
  if (!key) throw new StepFailure('KmsKeyMissing', 'The cluster has no KMS key in Barbican.', condition);
  return key.cloud_id;
}

/** A control plane's plugin material: the key recorded for the cluster and its credential (undefined when off). */
export async function kmsInput(ctx: RunContext): Promise<KmsInput | undefined> {
  if (!(await clusterSpec(ctx)).kms.enabled) return undefined;
  const keyId = await kmsKeyId(ctx);
  const secret = ctx.cloudFactory.credentialSecret(ctx.cluster);
  if (!secret || !ctx.cluster.app_cred_id) throw new StepFailure('NoCredential', 'The cluster has no application credential.', 'control_plane');
  return { cloudConf: kmsCloudConf({ ...ctx.cloudFactory.identity, applicationCredentialId: ctx.cluster.app_cred_id, applicationCredentialSecret: secret }, keyId) };
}

/** Delete, after the servers (nothing decrypts with it any more): the recorded key and any key by its name. */
export const purgeKmsKey: Step = {
  name: 'kms_key',
  before: ['ports'],
  after: ['node_volumes'],
  run: (ctx) =>
    purge(ctx, {
      service: 'key-manager', type: 'secret',
      client: (cloud) => cloud.barbican(),
      // Secrets carry neither tags nor descriptions: the cluster's uuid in the name marks ours.
      find: async (b) => (await b.listSecrets(kmsKeyName(ctx.cluster.uuid))).map((s) => ({ id: secretId(s.secret_ref), description: s.name ?? null })),
      delete: (b, id) => b.deleteSecret(id),
    }),
};
