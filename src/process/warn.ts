// A warning as one JSON line on stderr, unless the configured log level is silent (the API's and the worker's
// pre-flight, the template cache's change feed, the operation relay).
import type { Config } from '../config.js';

export const warn = (config: Pick<Config, 'logLevel'>) => (obj: Record<string, unknown>, msg: string): void => {
  if (config.logLevel !== 'silent') console.warn(JSON.stringify({ level: 'warn', msg, ...obj }));
};
