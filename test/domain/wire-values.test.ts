// Values as Magnum's wsme reads and refuses them (src/domain/wire-values.ts): its boolean and numeric
// strings converted before validation, and its wording for each kind of schema failure.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { coerceScalars, isObject, parseBool, validationError, type AjvError } from '../../src/domain/wire-values.js';

describe('parseBool', () => {
  const cases: [unknown, boolean | undefined][] = [
    [true, true], [false, false], [1, true], [0, false], [2, undefined],
    ['true', true], ['YES', true], ['on', true], ['1', true], ['y', true], ['T', true],
    ['false', false], ['No', false], ['off', false], ['0', false], ['n', false], ['f', false],
    ['maybe', undefined], ['', undefined], [null, undefined], [{}, undefined],
  ];
  for (const [v, want] of cases) {
    test(`${JSON.stringify(v)} → ${want}`, () => assert.equal(parseBool(v), want));
  }
});

describe('coerceScalars', () => {
  const schema = {
    properties: {
      flag: { type: 'boolean' },
      nflag: { type: ['boolean', 'null'] },
      either: { type: ['boolean', 'string'] },
      count: { type: 'integer' },
      size: { type: ['number', 'null'] },
      name: { type: 'string' },
    },
  };

  test('boolean and numeric strings become booleans and numbers, in place; 0/1 numbers booleans', () => {
    const o: Record<string, unknown> = { flag: 'yes', nflag: 1, either: 'yes', count: ' 12 ', size: '-1.5', name: '7' };
    coerceScalars(o, schema);
    assert.deepEqual(o, { flag: true, nflag: true, either: 'yes', count: 12, size: -1.5, name: '7' });
  });

  test('what it cannot read is left for the validator to refuse', () => {
    const o: Record<string, unknown> = { flag: 'perhaps', count: '12abc', size: '1e3', name: 5 };
    coerceScalars(o, schema);
    assert.deepEqual(o, { flag: 'perhaps', count: '12abc', size: '1e3', name: 5 });
  });

  test('numbersToStrings (PATCH values) turns numbers into strings for string attributes only', () => {
    const o: Record<string, unknown> = { name: 5, count: 3 };
    coerceScalars(o, schema, { numbersToStrings: true });
    assert.deepEqual(o, { name: '5', count: 3 });
  });
});

test('isObject: a JSON object, not an array or null', () => {
  assert.deepEqual([isObject({}), isObject([]), isObject(null), isObject('x')], [true, false, false, false]);
});

describe('validationError: wsme’s wording', () => {
  const err = (e: Partial<AjvError>, data: unknown = {}) => validationError({ instancePath: '', keyword: 'x', params: {}, ...e }, data);
  const cases: [string, Partial<AjvError>, unknown, number, string][] = [
    ['required', { keyword: 'required', params: { missingProperty: 'coe' } }, {}, 400, "Invalid input for field/attribute coe. Value: 'None'. Mandatory field missing."],
    ['maxLength', { instancePath: '/name', keyword: 'maxLength', params: { limit: 3 } }, { name: 'abcd' }, 400, "Invalid input for field/attribute name. Value: 'abcd'. Value should have a maximum character requirement of 3"],
    ['minimum, nested path', { instancePath: '/a/b', keyword: 'minimum', params: { limit: 1 } }, { a: { b: 0 } }, 400, "Invalid input for field/attribute a.b. Value: '0'. Value should be greater or equal to 1"],
    ['enum without null', { instancePath: '/d', keyword: 'enum', params: { allowedValues: ['a', 'b', null] } }, { d: 'c' }, 400, "Invalid input for field/attribute d. Value: 'c'. Value should be one of: a, b"],
    ['type', { instancePath: '/n', keyword: 'type', params: { type: 'integer' } }, { n: [1] }, 400, "Invalid input for field/attribute n. Value: '[1]'. Wrong type. Expected 'integer', got 'array'"],
    ['additionalProperties', { instancePath: '/labels', keyword: 'additionalProperties', params: { additionalProperty: 'x' } }, {}, 400, 'Unknown attribute for argument labels: x'],
    ['a key too long (propertyNames)', { instancePath: '/labels', keyword: 'maxLength', params: { limit: 2 }, propertyName: 'abc' }, {}, 400, "Invalid input for field/attribute labels. Value: 'abc'. Keys should have a maximum character requirement of 2"],
    ['a reserved key', { instancePath: '/labels', keyword: 'not', params: {}, propertyName: '__proto__' }, {}, 400, "Invalid input for field/attribute labels. Value: '__proto__'. This key is reserved"],
    ['the body itself', { keyword: 'type', params: { type: 'object' } }, 'x', 400, "Invalid input for field/attribute body. Value: 'x'. Wrong type. Expected 'object', got 'string'"],
  ];
  for (const [name, e, data, status, message] of cases) {
    test(name, () => {
      const out = err(e, data);
      assert.equal(out.status, status);
      assert.equal(out.message, message);
    });
  }

  test('a JSON pointer’s escapes (~0, ~1) are read back to the key', () => {
    const out = err({ instancePath: '/labels/a~1b', keyword: 'maxLength', params: { limit: 1 } }, { labels: { 'a/b': 'xy' } });
    assert.match(out.message, /Value: 'xy'\./);
  });
});
