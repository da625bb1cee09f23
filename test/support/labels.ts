// Shared by the label tests: the spec parsed from the test cluster's input, and the 400 a bad label value is
// (InvalidLabelError naming the label, its value and the reason).
import assert from 'node:assert/strict';
import { InvalidLabelError } from '../../src/domain/errors.js';
import { parseClusterSpec } from '../../src/cluster-spec/parse.js';
import type { ClusterSpec, ParseResult } from '../../src/cluster-spec/types.js';
import { input } from './spec-fixtures.js';

export type Over = Parameters<typeof input>[0];

export const parsed = (over: Over = {}): ParseResult => parseClusterSpec(input(over));
export const specOf = (over: Over = {}): ClusterSpec => parsed(over).spec;
export const warningsOf = (labels: Record<string, string>, over: Over = {}): string[] => parsed({ ...over, labels }).warnings;

/** assert.throws' validator of the 400 for `label` whose message matches `reason`. */
export const labelError = (label: string, reason: RegExp = /./) => (e: unknown): boolean =>
  e instanceof InvalidLabelError && e.status === 400 && e.label === label && reason.test(e.message);

/** Parsing these labels is a 400 naming `name`, with a reason matching `pattern`. */
export function rejects(labels: Record<string, string>, name: string, pattern: RegExp, over: Over = {}): void {
  assert.throws(() => parseClusterSpec(input({ ...over, labels })), labelError(name, pattern), `${name}: ${JSON.stringify(labels)}`);
}
