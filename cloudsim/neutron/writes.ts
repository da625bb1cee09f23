// What every Neutron write shares: the wrapped body and its attribute checks, project ownership
// and policy, quotas (409 OverQuota), If-Match revision checks, and the standard attributes.
import type { FastifyRequest } from 'fastify';
import { SimError } from '../common/errors.js';
import type { SimCaller } from '../common/keystone-auth.js';
import type { NeutronState, QuotaResource, Standard } from './state.js';

export type Caller = SimCaller & { projectId: string };
export type Body = Record<string, unknown>;

export const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export const badRequest = (message: string, type = 'HTTPBadRequest') => new SimError(400, message, type);
export const conflict = (type: string, message: string) => new SimError(409, message, type);
export const policy = (rule: string) => new SimError(403, `(rule:${rule}) is disallowed by policy`, 'PolicyNotAuthorized');

/**
 * The `{<key>: {...}}` body of a POST or PUT. `allowed` lists the attributes the call accepts;
 * the others known to the resource (`known`) are 400 "not allowed in POST" / "read-only".
 */
export function bodyOf(request: FastifyRequest, key: string, allowed: readonly string[], known: readonly string[] = []): Body {
  const raw = request.body as Body | undefined;
  const inner = raw && typeof raw === 'object' ? raw[key] : undefined;
  if (!inner || typeof inner !== 'object' || Array.isArray(inner)) throw badRequest(`Unable to find '${key}' in request body`);
  return attributesOf(inner as Body, request.method === 'POST', allowed, known);
}

/** One resource's attributes (of a body or of a bulk's item), checked as `bodyOf` checks them. */
export function attributesOf(b: Body, post: boolean, allowed: readonly string[], known: readonly string[] = []): Body {
  for (const k of Object.keys(b)) {
    if (allowed.includes(k)) continue;
    if (known.includes(k) || ['id', 'tags', 'created_at', 'updated_at', 'revision_number', 'status'].includes(k)) {
      throw badRequest(post ? `Attribute '${k}' not allowed in POST` : `Cannot update read-only attribute ${k}`);
    }
    throw badRequest(`Unrecognized attribute(s) '${k}'`);
  }
  return b;
}

const invalid = (attr: string, reason: string) => badRequest(`Invalid input for ${attr}. Reason: ${reason}.`);

export function str(b: Body, attr: string, max = 255): string | undefined {
  const v = b[attr];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw invalid(attr, `'${JSON.stringify(v)}' is not a valid string`);
  if (v.length > max) throw invalid(attr, `'${v}' exceeds maximum length of ${max}`);
  return v;
}

export function bool(b: Body, attr: string): boolean | undefined {
  const v = b[attr];
  if (v === undefined) return undefined;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string' && ['true', 'false'].includes(v.toLowerCase())) return v.toLowerCase() === 'true';
  throw invalid(attr, `'${String(v)}' is not a valid boolean value`);
}

export function int(b: Body, attr: string, min: number, max: number): number | null | undefined {
  const v = b[attr];
  if (v === undefined || v === null) return v;
  const n = typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n)) throw invalid(attr, `'${String(v)}' is not an integer`);
  if (n < min || n > max) throw invalid(attr, `'${n}' is not in range ${min} through ${max}`);
  return n;
}

export function list(b: Body, attr: string): unknown[] | undefined {
  const v = b[attr];
  if (v === undefined) return undefined;
  if (!Array.isArray(v)) throw invalid(attr, `'${JSON.stringify(v)}' is not a list`);
  return v;
}

/** The owning project of a new resource: the caller's, or (admins only) the one in the body. */
export function projectFor(caller: Caller, b: Body): string {
  const asked = (b.project_id ?? b.tenant_id) as unknown;
  if (b.project_id !== undefined && b.tenant_id !== undefined && b.project_id !== b.tenant_id) {
    throw badRequest("Invalid input for operation: 'project_id' and 'tenant_id' do not match.", 'InvalidInput');
  }
  if (asked === undefined || asked === caller.projectId) return caller.projectId;
  if (typeof asked !== 'string') throw invalid('project_id', 'not a valid string');
  if (!caller.isAdmin) {
    throw badRequest("Specifying 'project_id' or 'tenant_id' other than the authenticated project in request requires admin privileges");
  }
  return asked;
}

export const owns = (caller: Caller, item: { projectId: string }): boolean => caller.isAdmin || item.projectId === caller.projectId;

/** 409 OverQuota when the project would exceed its quota of `resource`. */
export function checkQuota(state: NeutronState, projectId: string, resource: QuotaResource, count = 1): void {
  const limit = state.quota(projectId, resource);
  if (limit >= 0 && state.usage(projectId, resource) + count > limit) {
    throw conflict('OverQuota', `Quota exceeded for resources: ['${resource}'].`);
  }
}

/** If-Match: revision_number=N on PUT and DELETE (412 on a mismatch). */
export function checkRevision(request: FastifyRequest, item: { revisionNumber: number }): void {
  const header = request.headers['if-match'];
  if (typeof header !== 'string') return;
  const m = /revision_number=(\d+)/.exec(header);
  if (m && Number(m[1]) !== item.revisionNumber) {
    throw new SimError(412, `Constrained to ${m[1]}, but current revision is ${item.revisionNumber}`, 'RevisionNumberConstraintFailed');
  }
}

export function touch(item: { updatedAt: number; revisionNumber: number }): void {
  item.updatedAt = Math.max(Date.now(), item.updatedAt);
  item.revisionNumber++;
}

/** The standard attributes of a rendered resource. */
export function renderStandard(item: Standard): Record<string, unknown> {
  return {
    id: item.id,
    name: item.name,
    tenant_id: item.projectId,
    project_id: item.projectId,
    description: item.description,
    tags: item.tags,
    created_at: iso(item.createdAt),
    updated_at: iso(item.updatedAt),
    revision_number: item.revisionNumber,
  };
}

/** Applies the name and description of a body (both ≤ 255 characters). */
export function applyNames(item: { name: string; description: string }, b: Body): void {
  const name = str(b, 'name');
  if (name !== undefined) item.name = name;
  const description = str(b, 'description');
  if (description !== undefined) item.description = description;
}

/** Ports Neutron deletes with their network; they never block a network or subnet delete. */
export const AUTO_DELETE_OWNERS = ['network:dhcp', 'network:distributed', 'network:floatingip_agent_gateway'];

/** Ports only the router and floating IP APIs may delete (409 ServicePortInUse otherwise). */
export const ROUTER_OWNERS = [
  'network:router_interface',
  'network:router_interface_distributed',
  'network:ha_router_replicated_interface',
  'network:router_gateway',
  'network:floatingip',
  'network:router_centralized_snat',
  'network:router_ha_interface',
];

export const INTERFACE_OWNERS = ['network:router_interface', 'network:router_interface_distributed', 'network:ha_router_replicated_interface'];
