// What every simulated service's state offers the cloud-wide tools: an inventory of its live
// resources (the audit), and a snapshot of itself that a restarted simulator can load (persistence).

/** One live resource, as the audit lists it. */
export interface AuditResource {
  /** The resource type in the service's own words: server, network, loadbalancer, volume, zone... */
  type: string;
  id: string;
  /** The owning project ('' for resources the service itself owns, such as router gateway ports). */
  project_id: string;
  name?: string;
  tags?: string[];
}

export interface Auditable {
  auditResources(): AuditResource[];
}

/**
 * A state that can be written down and loaded again. `snapshot()` returns plain JSON data;
 * `restore()` replaces the state with it. Transitions pending at snapshot time are settled on restore.
 */
export interface Snapshotable {
  snapshot(): unknown;
  restore(snapshot: unknown): void;
}

/** Calls per operation (`METHOD /route`), as the service apps count them. */
export class CallCounter {
  private readonly counts = new Map<string, number>();
  private readonly listeners = new Set<() => void>();

  /** Calls `fn` after each answered request; returns its removal. */
  onAnswered(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  answered(): void {
    for (const fn of this.listeners) fn();
  }

  hit(operation: string): void {
    this.counts.set(operation, (this.counts.get(operation) ?? 0) + 1);
  }

  get(operation: string): number {
    return this.counts.get(operation) ?? 0;
  }

  /** Every operation called at least once, sorted. */
  all(): Record<string, number> {
    return Object.fromEntries([...this.counts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  reset(): void {
    this.counts.clear();
  }
}

/**
 * The operation name of a route: the method and the route pattern without the API version prefix
 * (and Cinder's project id), e.g. `POST /servers`, `GET /lbaas/loadbalancers/:id`, `GET /` for a version document.
 */
export function operationOf(method: string, routeUrl: string): string {
  const route = routeUrl.replace(/^\/v\d+(?:\.\d+)?(?=\/|$)/, '').replace(/^\/:project_id(?=\/|$)/, '') || '/';
  return `${method.toUpperCase()} ${route}`;
}
