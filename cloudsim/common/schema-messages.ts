// The texts of Python's jsonschema for a failing keyword, which Nova, Cinder and Designate put in
// their 400s. `repr` prints a value as the service does (Python's repr for Nova and Cinder).
import type { SchemaIssue } from './openapi-validation.js';

const list = (values: unknown, repr: (v: unknown) => string): string =>
  `[${([] as unknown[]).concat(values).map(repr).join(', ')}]`;

export function jsonschemaMessage(issue: SchemaIssue, repr: (v: unknown) => string): string {
  const p = issue.params;
  const v = repr(issue.at.value);
  switch (issue.keyword) {
    case 'type':
      return `${v} is not of type ${String(p.type).split(',').map((t) => `'${t}'`).join(', ')}`;
    case 'required':
      return `'${String(p.missingProperty)}' is a required property`;
    case 'additionalProperties':
      return `Additional properties are not allowed ('${String(p.additionalProperty)}' was unexpected)`;
    case 'enum':
      return `${v} is not one of ${list(p.allowedValues, repr)}`;
    case 'const':
      return `${repr(p.allowedValue)} was expected`;
    case 'minLength':
    case 'minItems':
      return `${v} is too short`;
    case 'maxLength':
    case 'maxItems':
      return `${v} is too long`;
    case 'minProperties':
      return `${v} does not have enough properties`;
    case 'maxProperties':
      return `${v} has too many properties`;
    case 'minimum':
      return `${v} is less than the minimum of ${String(p.limit)}`;
    case 'maximum':
      return `${v} is greater than the maximum of ${String(p.limit)}`;
    case 'pattern':
      return `${v} does not match ${repr(p.pattern)}`;
    case 'oneOf':
    case 'anyOf':
      return `${v} is not valid under any of the given schemas`;
    default:
      return `${v} ${issue.message}`;
  }
}
