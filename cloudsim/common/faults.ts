// Fault injection shared by the service simulators (spec openstack-apis §8.13): answer matching
// calls with an HTTP error, drop the connection before or after the work is done, or hold them
// for a while first, as a broken service or gateway would. A rule may hit every matching call or
// only a fraction of them; the draws come from a seeded stream so a run replays.
import { SeededRandom } from './clock.js';

/**
 * What a hit does (after waiting `delayMs`, when set):
 * - error: answer `status` in the service's error shape (the call is not applied);
 * - drop: close the connection without answering (the call is not applied);
 * - lost: apply the call, then close the connection instead of answering (spec §7.5);
 * - slow: only wait, then handle the call normally.
 * Default: error when `status` is set, slow otherwise.
 */
export type FaultAction = 'error' | 'drop' | 'lost' | 'slow';
export const FAULT_ACTIONS: readonly FaultAction[] = ['error', 'drop', 'lost', 'slow'];

export interface FaultRule {
  /** Only this method (any when absent). */
  method?: string;
  /** Only URLs (path and query) containing this string or matching this pattern (any when absent). */
  path?: string | RegExp;
  /**
   * Only this operation, as the call counters name it: `POST /servers`, `DELETE /lbaas/loadbalancers/:id`,
   * or a route alone (`/servers`) for any method. The API version prefix is left out (any when absent).
   */
  operation?: string;
  action?: FaultAction;
  /** Answer with this status in the service's error shape (action error). */
  status?: number;
  /** Error message in the body; a generic one per status by default. */
  message?: string;
  /** Hold the call this long before acting (to make a client time out). */
  delayMs?: number;
  /** How many calls the rule hits before it goes away; unlimited when absent. */
  times?: number;
  /** The probability (0..1] that a matching call is hit; every matching call when absent. */
  rate?: number;
}

/** A rule as listed: its id and how many calls it has hit. */
export type ListedFault = Omit<FaultRule, 'path'> & { id: string; path?: string; hits: number };

/** What the service app must do with a call a rule hit. */
export interface FaultHit {
  action: FaultAction;
  status?: number;
  message?: string;
  delayMs?: number;
}

interface Entry {
  id: string;
  rule: FaultRule;
  hits: number;
}

/** Checks a rule given as data (configuration file, admin API); returns the problem or undefined. */
export function faultRuleProblem(rule: FaultRule): string | undefined {
  if (rule.action !== undefined && !FAULT_ACTIONS.includes(rule.action)) return `action must be one of ${FAULT_ACTIONS.join(', ')}`;
  if (rule.status !== undefined && !(Number.isInteger(rule.status) && rule.status >= 400 && rule.status <= 599)) return 'status must be an HTTP error status (400-599)';
  if (rule.action === 'error' && rule.status === undefined) return 'action error needs a status';
  if (rule.rate !== undefined && !(rule.rate > 0 && rule.rate <= 1)) return 'rate must be in (0, 1]';
  if (rule.times !== undefined && !(Number.isInteger(rule.times) && rule.times > 0)) return 'times must be a positive integer';
  if (rule.delayMs !== undefined && !(rule.delayMs >= 0)) return 'delayMs must be >= 0';
  return undefined;
}

function actionOf(rule: FaultRule): FaultAction {
  return rule.action ?? (rule.status !== undefined ? 'error' : 'slow');
}

function matchesOperation(pattern: string, method: string, operation: string | undefined): boolean {
  if (operation === undefined) return false;
  const p = pattern.trim();
  if (p.startsWith('/')) return operation.slice(operation.indexOf(' ') + 1) === p;
  const [m, ...rest] = p.split(/\s+/);
  return m!.toUpperCase() === method.toUpperCase() && `${method.toUpperCase()} ${rest.join(' ')}` === operation;
}

export class Faults {
  private entries: Entry[] = [];
  private seq = 0;
  private random: SeededRandom;

  constructor(random?: SeededRandom) {
    this.random = random ?? new SeededRandom(0);
  }

  /** Draw the `rate` rules from this stream (the cloud gives each service a fork of its seeded clock). */
  useRandom(random: SeededRandom): void {
    this.random = random;
  }

  /** Adds a rule; the oldest matching rule wins. Returns a function removing it. */
  inject(rule: FaultRule): () => void {
    const id = this.add(rule);
    return () => void this.remove(id);
  }

  /** Adds a rule and returns its id (for the admin API). */
  add(rule: FaultRule): string {
    const id = `fault-${++this.seq}`;
    this.entries.push({ id, rule: { ...rule }, hits: 0 });
    return id;
  }

  remove(id: string): boolean {
    const before = this.entries.length;
    this.entries = this.entries.filter((e) => e.id !== id);
    return this.entries.length !== before;
  }

  clear(): void {
    this.entries = [];
  }

  list(): ListedFault[] {
    return this.entries.map(({ id, rule, hits }) => {
      const { path, ...rest } = rule;
      return { id, ...rest, ...(path !== undefined ? { path: String(path) } : {}), hits };
    });
  }

  /**
   * The rule hitting this call, counted as used; undefined when the call goes through.
   * `operation` is the call's `METHOD /route` (what `operation` rules match).
   */
  take(method: string, url: string, operation?: string): FaultHit | undefined {
    for (const entry of this.entries) {
      const r = entry.rule;
      if (r.method !== undefined && r.method.toUpperCase() !== method.toUpperCase()) continue;
      if (r.path !== undefined && !(typeof r.path === 'string' ? url.includes(r.path) : r.path.test(url))) continue;
      if (r.operation !== undefined && !matchesOperation(r.operation, method, operation)) continue;
      if (r.rate !== undefined && r.rate < 1 && !this.random.chance(r.rate)) continue;
      entry.hits++;
      if (r.times !== undefined && --r.times <= 0) this.entries = this.entries.filter((e) => e !== entry);
      return {
        action: actionOf(r),
        ...(r.status !== undefined ? { status: r.status } : {}),
        ...(r.message !== undefined ? { message: r.message } : {}),
        ...(r.delayMs !== undefined ? { delayMs: r.delayMs } : {}),
      };
    }
    return undefined;
  }
}
