// The label parser's warnings in a cluster's event timeline (src/clusters/label-warnings.ts): one warning
// event each, recorded with the create's acceptance (a create through the use case: test/clusters/create.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { labelWarningEvent } from '../../src/clusters/label-warnings.js';

test('a warning event carrying the parser’s words', () => {
  assert.deepEqual(labelWarningEvent('Label foo is unknown; it is kept and ignored.'), { reason: 'LabelWarning', message: 'Label foo is unknown; it is kept and ignored.', severity: 'warning' });
});
