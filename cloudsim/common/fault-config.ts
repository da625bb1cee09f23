// Fault rules given as data: in a JSON or YAML document (CLOUDSIM_FAULTS, CLOUDSIM_FAULTS_FILE)
// keyed by service, or one at a time through the admin API. `pathPattern` is a regular
// expression source (the data form of a RegExp `path`).
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { parse } from 'yaml';
import { FAULT_ACTIONS, faultRuleProblem, type FaultRule } from './faults.js';

export const FaultRuleSchema = Type.Object(
  {
    method: Type.Optional(Type.String()),
    path: Type.Optional(Type.String()),
    pathPattern: Type.Optional(Type.String()),
    operation: Type.Optional(Type.String()),
    action: Type.Optional(Type.Union(FAULT_ACTIONS.map((a) => Type.Literal(a)))),
    status: Type.Optional(Type.Integer()),
    message: Type.Optional(Type.String()),
    delayMs: Type.Optional(Type.Number({ minimum: 0 })),
    times: Type.Optional(Type.Integer({ minimum: 1 })),
    rate: Type.Optional(Type.Number()),
  },
  { additionalProperties: false },
);

export type FaultRuleData = Static<typeof FaultRuleSchema>;

/** Fault rules by service name. */
export type FaultConfig = Record<string, FaultRule[]>;

/** A rule from its data form; throws an Error naming the problem. */
export function faultRuleFrom(data: unknown, where = 'fault'): FaultRule {
  if (!Value.Check(FaultRuleSchema, data)) {
    const e = [...Value.Errors(FaultRuleSchema, data)][0];
    throw new Error(`${where}${e?.path ?? ''}: ${e?.message ?? 'not a fault rule'}`);
  }
  const { pathPattern, ...rest } = data;
  if (pathPattern !== undefined && rest.path !== undefined) throw new Error(`${where}: give path or pathPattern, not both`);
  let rule: FaultRule = rest;
  if (pathPattern !== undefined) {
    try {
      rule = { ...rest, path: new RegExp(pathPattern) };
    } catch (e) {
      throw new Error(`${where}/pathPattern: ${(e as Error).message}`);
    }
  }
  const problem = faultRuleProblem(rule);
  if (problem) throw new Error(`${where}: ${problem}`);
  return rule;
}

/** Parses `{ <service>: [rule, ...] }` (JSON is YAML too); every service must be one of `services`. */
export function parseFaultConfig(text: string, services: readonly string[], source = 'faults'): FaultConfig {
  let doc: unknown;
  try {
    doc = parse(text) ?? {};
  } catch (e) {
    throw new Error(`${source}: not valid JSON or YAML: ${(e as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new Error(`${source}: expected a mapping of service names to lists of rules`);
  const config: FaultConfig = {};
  for (const [service, rules] of Object.entries(doc)) {
    if (!services.includes(service)) throw new Error(`${source}: unknown service ${service} (one of ${services.join(', ')})`);
    if (!Array.isArray(rules)) throw new Error(`${source}/${service}: expected a list of rules`);
    config[service] = rules.map((r, i) => faultRuleFrom(r, `${source}/${service}/${i}`));
  }
  return config;
}
