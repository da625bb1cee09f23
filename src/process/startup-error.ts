// A start that fails ends the process with one line on stderr: exit code 2 for bad configuration
// (a missing or malformed variable), 1 for anything else (a dependency that cannot be reached, a
// schema behind the build, a port in use). LOG_LEVEL=debug adds the stack.
import { ConfigError } from '../config.js';

/** The clearest one-line account of an error (Node's AggregateError from a dual-stack connect has an empty message). */
export function describeError(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const parts = e instanceof AggregateError && e.errors.length > 0 ? e.errors.map((x) => describeError(x)) : [e.message || (e as { code?: string }).code || e.name];
  return [...new Set(parts)].join('; ');
}

export function exitCodeOf(e: unknown): number {
  return e instanceof ConfigError ? 2 : 1;
}

/** Writes the line and exits; `what` names the mode and the step that failed (e.g. "api: PostgreSQL"). */
export function exitOnStartupError(what: string, e: unknown): never {
  const kind = e instanceof ConfigError ? 'bad configuration: ' : '';
  process.stderr.write(`magnum-ts ${what}: ${kind}${describeError(e).replace(/\s*\n\s*/g, ' ')}\n`);
  if (/^(debug|trace)$/i.test(process.env.LOG_LEVEL ?? '') && e instanceof Error && e.stack) process.stderr.write(`${e.stack}\n`);
  process.exit(exitCodeOf(e));
}
