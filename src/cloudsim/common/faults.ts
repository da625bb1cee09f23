// Fault injection shared by the service simulators (spec openstack-apis §8.13): answer matching
// calls with an HTTP error, or hold them for a while first, as a broken service or gateway would.

export interface FaultRule {
  /** Only this method (any when absent). */
  method?: string;
  /** Only URLs (path and query) containing this string or matching this pattern (any when absent). */
  path?: string | RegExp;
  /** Answer with this status in the service's error shape; when absent the call only waits `delayMs`. */
  status?: number;
  /** Error message in the body; a generic one per status by default. */
  message?: string;
  /** Hold the call this long before answering (to make a client time out). */
  delayMs?: number;
  /** How many calls the rule hits before it goes away; unlimited when absent. */
  times?: number;
}

export class Faults {
  private rules: FaultRule[] = [];

  /** Adds a rule; the oldest matching rule wins. Returns a function removing it. */
  inject(rule: FaultRule): () => void {
    const copy = { ...rule };
    this.rules.push(copy);
    return () => {
      this.rules = this.rules.filter((r) => r !== copy);
    };
  }

  clear(): void {
    this.rules = [];
  }

  /** The rule hitting this call, counted as used; undefined when the call goes through. */
  take(method: string, url: string): FaultRule | undefined {
    const rule = this.rules.find(
      (r) =>
        (r.method === undefined || r.method.toUpperCase() === method.toUpperCase()) &&
        (r.path === undefined || (typeof r.path === 'string' ? url.includes(r.path) : r.path.test(url))),
    );
    if (!rule) return undefined;
    if (rule.times !== undefined && --rule.times <= 0) this.rules = this.rules.filter((r) => r !== rule);
    return rule;
  }
}
