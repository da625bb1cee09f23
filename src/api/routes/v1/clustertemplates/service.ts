// Create and update of cluster templates (and baymodels), in Magnum's order of checks.
import { randomUUID } from 'node:crypto';
import { Ajv } from 'ajv';
import type { ClusterTemplateRow } from '../../../../db/entities/cluster-template.js';
import type { ClusterTemplateRepo, Visibility } from '../../../../db/repos/cluster-templates.js';
import { errors } from '../../../../domain/errors.js';
import { applyPatch, BASE_INTERNAL, changedFields, type PatchOp } from '../../../../domain/json-patch.js';
import { generateName } from '../../../../domain/names.js';
import { pythonStr } from '../../../../domain/python-literal.js';
import type { AuthContext } from '../../../../keystone/context.js';
import { zonesNamed } from '../../../../cluster-spec/zones.js';
import { nodeImageOf, type CloudChecks } from '../../../../preflight/cloud-checks.js';
import { coerceScalars } from '../../../plugins/coerce.js';
import { validationError } from '../../../plugins/envelope.js';
import { allowed, enforce } from '../../../../domain/policy.js';
import { checkDns, checkDriverExists, checkDrivers, DEFAULTS, type Flavor } from './rules.js';
import type { TemplateCache } from '../../../../db/template-cache.js';
import { BayModelCreate, TemplateCreate, WRITABLE_KEYS, type TemplateBodyT } from './schema.js';
import { templateVisibility as visibility } from '../../../../clusters/lookup.js';

export { visibility };

/** A template's attributes by name, as a patch and the create schema see them. */
type Attributes = Record<string, unknown>;

const ajv = new Ajv({ coerceTypes: false, allErrors: false, strict: false });
const validators = { template: ajv.compile(TemplateCreate), baymodel: ajv.compile(BayModelCreate) };

const NON_REMOVABLE = ['/coe', '/image_id', '/network_driver', '/external_network_id', '/tls_disabled', '/public', '/server_type', '/registry_enabled', '/cluster_distro', '/hidden'];
const PATCH_RULES = {
  template: { internal: new Set(BASE_INTERNAL), nonRemovable: new Set(NON_REMOVABLE), dictPaths: new Set(['/labels']) },
  baymodel: { internal: new Set(BASE_INTERNAL), nonRemovable: new Set([...NON_REMOVABLE, '/keypair_id']), dictPaths: new Set(['/labels']) },
};

const rule = (flavor: Flavor, action: string) => `${flavor === 'template' ? 'clustertemplate' : 'baymodel'}:${action}` as Parameters<typeof enforce>[1];

export interface TemplateDeps {
  repo: ClusterTemplateRepo;
  /** Read cache of the GET paths; the repo invalidates it on every write. */
  cache: TemplateCache;
  /** Glance/Nova/Neutron checks; absent when switched off by configuration. */
  cloud: CloudChecks | undefined;
}

export interface Caller {
  ctx: AuthContext;
  token: string;
}

const labelsToStrings = (labels: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries((labels ?? {}) as Record<string, string | number | boolean>).map(([k, v]) => [k, pythonStr(v)]));

/** Validates a full attribute set (after defaults or a patch) against the create schema. */
function schemaCheck(flavor: Flavor, attrs: Attributes): void {
  const validate = validators[flavor];
  coerceScalars(attrs, flavor === 'template' ? TemplateCreate : BayModelCreate, { numbersToStrings: true });
  if (!validate(attrs)) throw validationError(validate.errors![0]!, attrs);
}

/**
 * Glance/Nova/Neutron checks of the attributes in `changed`; the image's os_distro fills cluster_distro. A
 * Kubernetes template's image (a new one, or the same under a new COE or server type) meets the node image contract;
 * the availability zones its labels name are Nova's.
 */
async function cloudChecks(deps: TemplateDeps, who: Caller, t: ClusterTemplateRow, changed: Set<string> | 'all', distro?: string, flavor: Flavor = 'template'): Promise<void> {
  const cloud = deps.cloud;
  if (!cloud) return;
  const has = (k: string) => changed === 'all' || changed.has(k);
  const kubernetes = flavor === 'template' && t.coe === 'kubernetes';
  if (distro !== undefined) t.cluster_distro = distro;
  else if (has('image_id') || (kubernetes && (has('coe') || has('server_type')))) {
    const props = await cloud.imageProperties(who, t.image_id);
    t.cluster_distro = String(props.os_distro);
    if (kubernetes) nodeImageOf(props, t.image_id, t.server_type);
  }
  for (const f of ['flavor_id', 'master_flavor_id'] as const) {
    const v = t[f];
    if (v !== null && has(f)) await cloud.checkFlavor(who, v);
  }
  if (t.external_network_id !== null && has('external_network_id')) await cloud.checkExternalNetwork(who, t.external_network_id);
  if (has('labels')) await cloud.checkZones(who, zonesNamed(t.labels));
}

function checkPublish(flavor: Flavor, who: Caller, before: { public: boolean; hidden: boolean }, after: { public: boolean; hidden: boolean }): void {
  const changed = before.public !== after.public || (flavor === 'template' && before.hidden !== after.hidden);
  if (changed && !allowed(who.ctx, rule(flavor, 'publish'))) throw errors.notAuthorizedPublish();
}

export async function createTemplate(deps: TemplateDeps, flavor: Flavor, who: Caller, body: TemplateBodyT): Promise<ClusterTemplateRow> {
  if (flavor === 'baymodel' && (body.keypair_id === undefined || body.keypair_id === null)) {
    throw errors.invalidInput('keypair_id', 'None', 'Mandatory field missing.');
  }
  if (body.image_id === undefined || body.image_id === null) {
    throw errors.invalidInput('image_id', 'None', 'Mandatory field missing.');
  }
  const now = new Date();
  const t = {
    uuid: randomUUID(),
    name: body.name ?? generateName(flavor === 'template' ? 'template' : 'model'),
    project_id: who.ctx.projectId ?? '',
    user_id: who.ctx.userId,
    created_at: now,
    updated_at: null,
  } as ClusterTemplateRow;
  Object.assign(t, Object.fromEntries(WRITABLE_KEYS.filter((k) => k !== 'name').map((k) => [k, body[k] ?? null])));
  for (const [k, v] of Object.entries(DEFAULTS)) if ((Reflect.get(t, k) ?? null) === null) Reflect.set(t, k, v);
  t.labels = labelsToStrings(body.labels);
  t.coe = body.coe ?? '';
  checkDns(t.dns_nameserver, flavor);
  checkDrivers(t);
  // Magnum checks that a driver exists for the image's distro before the policy (spec §3.1).
  const props = deps.cloud && flavor === 'template' ? await deps.cloud.imageProperties(who, t.image_id) : undefined;
  const distro = props ? String(props.os_distro) : undefined;
  if (distro !== undefined) checkDriverExists(t.server_type, distro, t.coe);
  if (props && t.coe === 'kubernetes') nodeImageOf(props, t.image_id, t.server_type);
  enforce(who.ctx, rule(flavor, 'create'));
  await cloudChecks(deps, who, t, 'all', distro);
  checkPublish(flavor, who, { public: false, hidden: false }, t);
  return deps.repo.insert(t);
}

/** The attributes a patch works on (internal ones are refused by the patch rules). */
const patchable = (t: ClusterTemplateRow): Attributes => ({ ...t });

/** The only changes allowed on a template clusters use: one of name, public→true, hidden, tags. */
function allowedWhileReferenced(changed: string[], after: ClusterTemplateRow): boolean {
  if (changed.length !== 1) return changed.length === 0;
  const f = changed[0]!;
  return f === 'name' || f === 'hidden' || (f === 'public' && after.public) || (f === 'tags' && after.tags !== null);
}

export async function updateTemplate(
  deps: TemplateDeps,
  flavor: Flavor,
  who: Caller,
  current: ClusterTemplateRow,
  ops: PatchOp[],
): Promise<ClusterTemplateRow> {
  enforce(who.ctx, rule(flavor, 'update'), current);
  const before = patchable(current);
  const after = applyPatch(before, ops, PATCH_RULES[flavor]);
  for (const [k, v] of Object.entries(DEFAULTS)) if (after[k] === null) after[k] = v;
  if (after.labels === null) after.labels = {};
  // A removed name is the one a create without a name gets (a template always has one; it was a 500).
  if (after.name === null) after.name = generateName(flavor === 'template' ? 'template' : 'model');
  const attrs: Attributes = Object.fromEntries(WRITABLE_KEYS.map((k) => [k, after[k]]));
  schemaCheck(flavor, attrs);
  const next = { ...current, ...attrs, labels: labelsToStrings(attrs.labels) } as ClusterTemplateRow;
  const changed = changedFields(before, { ...next }).filter((k) => WRITABLE_KEYS.some((w) => w === k));
  checkDns(next.dns_nameserver, flavor);
  checkDrivers(next);
  await cloudChecks(deps, who, next, new Set(changed), undefined, flavor);
  if (changed.length > 0 && (await deps.repo.isReferenced(current.uuid)) && !allowedWhileReferenced(changed, next)) {
    throw errors.templateReferenced(current.uuid);
  }
  checkPublish(flavor, who, current, next);
  if (changed.length === 0) return current;
  next.updated_at = new Date();
  return deps.repo.update(next);
}

export async function deleteTemplate(deps: TemplateDeps, flavor: Flavor, who: Caller, t: ClusterTemplateRow): Promise<void> {
  enforce(who.ctx, rule(flavor, 'delete'), t);
  if (await deps.repo.isReferenced(t.uuid)) throw errors.templateReferenced(t.uuid);
  try {
    await deps.repo.remove(t.id);
  } catch (e) {
    // A cluster created between the check and the delete: the foreign key refuses it.
    if ((e as { code?: string }).code === '23503') throw errors.templateReferenced(t.uuid);
    throw e;
  }
}

