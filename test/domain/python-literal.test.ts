// The Python-dict strings python-magnumclient sends in PATCH values (str(dict)): escapes as repr writes them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LiteralError, parsePythonDict } from '../../src/domain/python-literal.js';

test("repr's \\xNN, \\uXXXX and \\UXXXXXXXX escapes decode to their characters", () => {
  // str({'a': 'x\xa0y', 'b': 'z\u200bw', 'c': '\U0001f600'}) in Python 3.
  assert.deepEqual(parsePythonDict(String.raw`{'a': 'x\xa0y', 'b': 'z\u200bw', 'c': '\U0001f600'}`), { a: 'x\u00a0y', b: 'z\u200bw', c: '\u{1f600}' });
});

test('the usual escapes, quotes and an unknown escape kept as written', () => {
  assert.deepEqual(parsePythonDict(String.raw`{'q': "it's", 'n': 'a\nb', 'k': 'c:\\d', 'z': 'a\qb'}`), { q: "it's", n: 'a\nb', k: 'c:\\d', z: 'a\\qb' });
});

test('a short \\x escape is not a character escape', () => {
  assert.deepEqual(parsePythonDict(String.raw`{'a': '\x4'}`), { a: '\\x4' });
  assert.throws(() => parsePythonDict("{'a': 'open"), LiteralError);
});
