// JSON patch (src/domain/json-patch.ts): prototype segments are refused at the shape check, and
// applying a patch walks own properties only, so nothing outside the patched copy can change.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../src/domain/errors.js';
import { applyPatch, checkPatch } from '../../src/domain/json-patch.js';
import { parsePythonDict } from '../../src/domain/python-literal.js';

const rules = { internal: new Set<string>(), nonRemovable: new Set<string>(), dictPaths: new Set(['/labels']) };

test('__proto__, prototype and constructor segments are a 400 naming the path', () => {
  for (const path of ['/__proto__', '/labels/__proto__/x', '/labels/constructor', '/a/prototype/b']) {
    assert.throws(
      () => checkPatch([{ op: 'add', path, value: 'y' }]),
      (e: unknown) => e instanceof ApiError && e.status === 400 && /is not an attribute of any resource/.test(e.message),
      path,
    );
  }
});

test('an inherited member is not walked into: Object.prototype stays untouched', () => {
  const doc = { labels: { a: 'b' } };
  // Bypass the shape check to prove the apply step alone is safe.
  assert.throws(() => applyPatch(doc, [{ op: 'add', path: '/labels/toString/polluted', value: 'y' }], rules));
  assert.throws(() => applyPatch(doc, [{ op: 'replace', path: '/labels/hasOwnProperty', value: 'y' }], rules));
  assert.throws(() => applyPatch(doc, [{ op: 'remove', path: '/labels/valueOf' }], rules));
  const out = applyPatch(doc, [{ op: 'add', path: '/labels/__proto__', value: 'y' }], rules);
  assert.equal(Object.getPrototypeOf(out.labels), Object.prototype);
  assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted'), false);
  assert.equal(typeof ({} as { toString: unknown }).toString, 'function');
});

test("a Python dict's '__proto__' key stays an own entry", () => {
  const d = parsePythonDict("{'__proto__': 'x', 'a': 1}");
  assert.equal(Object.getPrototypeOf(d), Object.prototype);
  assert.deepEqual(Object.keys(d), ['__proto__', 'a']);
});
