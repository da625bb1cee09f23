// Magnum's generated names: "<greek letter>-<1..24>-<suffix>", e.g. "zeta-7-template".
import { randomInt } from 'node:crypto';

const GREEK = [
  'alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa', 'lambda', 'mu',
  'nu', 'xi', 'omicron', 'pi', 'rho', 'sigma', 'tau', 'upsilon', 'phi', 'chi', 'psi', 'omega',
];

export function generateName(suffix: string): string {
  return `${GREEK[randomInt(GREEK.length)]}-${randomInt(1, 25)}-${suffix}`;
}
