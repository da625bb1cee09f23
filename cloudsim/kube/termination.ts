// Graceful deletion, as the apiserver and the kubelet share it: deleting a pod bound to a node
// (DELETE or an eviction) marks it with deletionTimestamp and deletionGracePeriodSeconds (its
// terminationGracePeriodSeconds, default 30, or the request's gracePeriodSeconds); the kubelet of
// a live node removes it once the grace period is over; on a node whose kubelet is gone it stays
// Terminating until the Node is deleted (then the pod garbage collector takes it). An unscheduled
// pod, or a grace period of 0, goes at once. Objects of any kind holding finalizers are only marked.
import type { SimClock, SimTimer } from '../common/clock.js';
import { terminating } from './disruption.js';
import { iso, type Obj, type ObjKey, type ObjectStore } from './store.js';

const DEFAULT_GRACE_SECONDS = 30;

const isPod = (k: ObjKey) => k.group === '' && k.resource === 'pods';

/**
 * Deletes `key` as the apiserver does: at once, or marked for a graceful end (pods on a node) or
 * for its finalizers. Undefined when there was nothing; the object as it is left otherwise.
 */
export function deleteGracefully(store: ObjectStore, key: ObjKey, now: number, graceSeconds?: number): Obj | undefined {
  const o = store.get(key);
  if (!o) return undefined;
  const finalizers = (o.metadata.finalizers as string[] | undefined) ?? [];
  const pod = isPod(key);
  const grace = graceSeconds ?? ((o.spec as { terminationGracePeriodSeconds?: number } | undefined)?.terminationGracePeriodSeconds ?? DEFAULT_GRACE_SECONDS);
  const graceful = pod && !!(o.spec as { nodeName?: string } | undefined)?.nodeName && grace > 0;
  if (!graceful && finalizers.length === 0) return store.delete(key);
  if (terminating(o)) {
    // A shorter grace period asked for later wins (kubectl delete --grace-period).
    const current = o.metadata.deletionGracePeriodSeconds as number | undefined;
    if (!pod || current === undefined || grace >= current) return o;
  }
  const meta = { ...o.metadata, deletionTimestamp: iso(now + grace * 1000), ...(pod ? { deletionGracePeriodSeconds: grace } : { deletionGracePeriodSeconds: 0 }) };
  return store.write(key, { ...o, metadata: meta });
}

/** After a write: an object marked for deletion whose finalizers are all gone is deleted (pods wait for their kubelet). */
export function finishDeletion(store: ObjectStore, key: ObjKey): void {
  const o = store.get(key);
  if (!o || !terminating(o) || ((o.metadata.finalizers as string[] | undefined) ?? []).length > 0) return;
  if (isPod(key) && ((o.spec as { nodeName?: string } | undefined)?.nodeName ?? '') !== '') return;
  store.delete(key);
}

/** A write cannot take back a deletion in progress: deletionTimestamp and its grace period stay. */
export function keepDeletion(old: Obj | undefined, next: Obj): Obj {
  const ts = old?.metadata.deletionTimestamp;
  if (ts === undefined) return next;
  return { ...next, metadata: { ...next.metadata, deletionTimestamp: ts, deletionGracePeriodSeconds: old!.metadata.deletionGracePeriodSeconds } };
}

/** DeleteOptions.gracePeriodSeconds from the query, else from the (parsed) body. */
export function gracePeriod(query: URLSearchParams, options: unknown): number | undefined {
  const fromQuery = query.get('gracePeriodSeconds');
  if (fromQuery !== null && /^\d+$/.test(fromQuery)) return Number(fromQuery);
  const b = options as { gracePeriodSeconds?: unknown } | undefined;
  return typeof b?.gracePeriodSeconds === 'number' ? b.gracePeriodSeconds : undefined;
}

/** The kubelets' side: a terminating pod on a live node is removed when its grace period ends. */
export class Kubelets {
  private readonly timers = new Map<string, { timer: SimTimer; grace: number }>();

  constructor(
    private readonly store: ObjectStore,
    private readonly clock: SimClock,
    /** After a pod went: the controllers catch up. */
    private readonly changed: () => void,
  ) {}

  /** Arms a timer for every terminating pod on a node whose kubelet runs (`alive`). */
  sync(alive: (nodeName: string) => boolean): void {
    const seen = new Set<string>();
    for (const p of this.store.peekList('', 'pods')) {
      if (!terminating(p)) continue;
      const uid = p.metadata.uid!;
      seen.add(uid);
      const grace = (p.metadata.deletionGracePeriodSeconds as number | undefined) ?? DEFAULT_GRACE_SECONDS;
      const armed = this.timers.get(uid);
      if (armed?.grace === grace || !alive((p.spec as { nodeName?: string }).nodeName ?? '')) continue;
      armed?.timer.cancel();
      const key = { group: '', resource: 'pods', namespace: p.metadata.namespace ?? 'default', name: p.metadata.name };
      const timer = this.clock.after(grace * 1000, () => {
        this.timers.delete(uid);
        const now = this.store.get(key);
        if (now?.metadata.uid !== uid || !terminating(now)) return;
        this.store.delete(key);
        this.changed();
      });
      this.timers.set(uid, { timer, grace });
    }
    // Pods gone another way (forced, collected with their Node): their timers go too.
    for (const [uid, t] of this.timers) {
      if (seen.has(uid)) continue;
      t.timer.cancel();
      this.timers.delete(uid);
    }
  }

  close(): void {
    for (const t of this.timers.values()) t.timer.cancel();
    this.timers.clear();
  }
}
