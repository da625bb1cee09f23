// Magnum's JSON-patch rules (spec §5): add/replace/remove on a resource's attributes, with
// internal and non-removable paths, and Python-literal dicts for map attributes.
import { errors } from './errors.js';
import { PATCH_OPS_MAX, STRING_MAX } from './limits.js';
import { LiteralError, parsePythonDict } from './python-literal.js';

export interface PatchOp {
  op: 'add' | 'replace' | 'remove';
  path: string;
  value?: unknown;
}

export interface PatchRules {
  internal: ReadonlySet<string>;
  nonRemovable: ReadonlySet<string>;
  /** Paths whose string values hold a Python-literal dict (e.g. /labels). */
  dictPaths: ReadonlySet<string>;
}

export const BASE_INTERNAL = ['/created_at', '/id', '/links', '/updated_at', '/uuid', '/project_id', '/user_id'];

const PATH_RE = /^(\/[\w-]+)+$/;
const OPS = ['add', 'replace', 'remove'];
/** Segments that would reach an object's prototype chain in JavaScript: never a resource's attribute. */
const FORBIDDEN_SEGMENTS: ReadonlySet<string> = new Set(['__proto__', 'prototype', 'constructor']);
const own = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** Checks the shape of a patch document; throws Magnum's 400s. Done before the resource lookup. */
export function checkPatch(body: unknown): PatchOp[] {
  if (!Array.isArray(body)) throw errors.patchNotList(body);
  if (body.length > PATCH_OPS_MAX) throw errors.invalidInput('patch', `${body.length} operations`, `Value should have at most ${PATCH_OPS_MAX} items`);
  return body.map((raw) => {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw errors.patchNotList(body);
    const { op, path, value, ...rest } = raw as Record<string, unknown>;
    const extra = Object.keys(rest);
    if (extra.length > 0) throw errors.unknownAttributes('patch', extra);
    if (typeof op !== 'string' || !OPS.includes(op)) {
      throw errors.invalidInput('op', op, 'Value should be one of: add, replace, remove');
    }
    if (typeof path === 'string' && path.length > STRING_MAX) {
      throw errors.invalidInput('path', path, `Value should have a maximum character requirement of ${STRING_MAX}`);
    }
    if (typeof path !== 'string' || !PATH_RE.test(path)) {
      throw errors.invalidInput('path', path, 'Value should match the pattern ^(/[\\w-]+)+$');
    }
    const bad = path.split('/').find((seg) => FORBIDDEN_SEGMENTS.has(seg));
    if (bad !== undefined) throw errors.invalidInput('path', path, `'${bad}' is not an attribute of any resource`);
    if (op !== 'remove') {
      if (value === undefined || value === null) throw errors.patchNeedsValue();
      if (typeof value === 'object') throw errors.invalidInput('value', value, 'Value should be a string or an integer');
      if (typeof value === 'number' && !Number.isInteger(value)) {
        throw errors.invalidInput('value', value, 'Value should be a string or an integer');
      }
    }
    return { op, path, value } as PatchOp;
  });
}

/** Applies a checked patch to a copy of `doc` (the resource as the API shows it). */
export function applyPatch(doc: Record<string, unknown>, ops: PatchOp[], rules: PatchRules): Record<string, unknown> {
  const out: Record<string, unknown> = structuredClone(doc);
  for (const op of ops) {
    const segs = op.path.split('/').slice(1);
    const top = `/${segs[0]}`;
    if (rules.internal.has(top)) throw errors.patchInternal(top);
    if (op.op === 'remove' && segs.length === 1 && rules.nonRemovable.has(top)) throw errors.patchMandatory(top);
    let value = op.value;
    if (op.op !== 'remove' && segs.length === 1 && rules.dictPaths.has(top) && typeof value === 'string') {
      try {
        value = parsePythonDict(value);
      } catch (e) {
        throw errors.invalidInput(top.slice(1), value, `Invalid dict: ${(e as LiteralError).message}`);
      }
    }
    if (segs.length === 1) applyTop(out, segs[0]!, op, value, ops);
    else applyNested(out, segs, op, value, ops);
  }
  return out;
}

function applyTop(doc: Record<string, unknown>, key: string, op: PatchOp, value: unknown, ops: PatchOp[]): void {
  const exists = own(doc, key);
  if (op.op === 'add') {
    if (!exists) throw errors.patchAddRoot(op.path);
    if (doc[key] !== null && doc[key] !== undefined) throw errors.patchAddExisting(op.path);
    doc[key] = value;
  } else if (op.op === 'replace') {
    if (!exists) throw errors.patchFailed(ops, `can't replace a non-existent object '${key}'`);
    doc[key] = value;
  } else {
    if (!exists) throw errors.patchFailed(ops, `can't remove a non-existent object '${key}'`);
    doc[key] = null;
  }
}

function applyNested(doc: Record<string, unknown>, segs: string[], op: PatchOp, value: unknown, ops: PatchOp[]): void {
  // Own properties only: an inherited member (Object.prototype's) is not part of the resource.
  let parent: unknown = doc;
  for (const s of segs.slice(0, -1)) {
    if (parent === null || typeof parent !== 'object') break;
    parent = own(parent, s) ? (parent as Record<string, unknown>)[s] : undefined;
  }
  const last = segs[segs.length - 1]!;
  if (parent === null || typeof parent !== 'object') {
    throw errors.patchFailed(ops, `member '${segs[segs.length - 2]}' not found in the resource`);
  }
  const p = parent as Record<string, unknown>;
  if (op.op === 'remove') {
    if (!own(p, last)) throw errors.patchFailed(ops, `can't remove a non-existent object '${last}'`);
    delete p[last];
  } else if (op.op === 'replace' && !own(p, last)) {
    throw errors.patchFailed(ops, `can't replace a non-existent object '${last}'`);
  } else {
    Object.defineProperty(p, last, { value, writable: true, enumerable: true, configurable: true });
  }
}

/** Top-level attributes whose value differs between two documents. */
export function changedFields(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  return Object.keys(after).filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
}
