// A service's resources of one kind: a Map by id that also files each item under the keys its API
// filters on (its project, name, tags, a parent's id...), so that a lookup by any of them costs what
// it returns, not what the cloud holds. set() and delete() keep the indexes in step; a change made
// in place to an indexed attribute is followed by refile(id). stale() tells the tests when one was
// missed.

/** The keys an item is filed under in one index: one, several (its tags), or none. */
export type KeysOf<T> = (item: T) => string | null | undefined | readonly string[];

const keyList = (keys: string | null | undefined | readonly string[]): readonly string[] =>
  keys === null || keys === undefined ? [] : typeof keys === 'string' ? [keys] : keys;

const EMPTY: ReadonlySet<string> = new Set();

/** The ids filed under one key, and the key itself (the one string every item filed under it shares). */
interface Bucket {
  key: string;
  ids: Set<string>;
}

/** What an item is filed under in one index: no key, one, or several (kept compact: most items have one). */
type Filed = undefined | string | readonly string[];

const filedList = (f: Filed): readonly string[] => (f === undefined ? [] : typeof f === 'string' ? [f] : f);

/** What a reader of an IndexedMap needs: a map of a narrower item type (a listener's) reads as one of a wider one. */
export interface Indexed<T, I extends string> {
  get(id: string): T | undefined;
  has(id: string): boolean;
  values(): IterableIterator<T>;
  readonly size: number;
  by(name: I, key: string): T[];
  first(name: I, key: string): T | undefined;
  count(name: I, key: string): number;
}

export class IndexedMap<T, I extends string = never> extends Map<string, T> implements Indexed<T, I> {
  private readonly indexes: [I, KeysOf<T>][];
  /** Index → key → the ids filed under it, in the order they were filed. */
  private readonly buckets = new Map<I, Map<string, Bucket>>();
  /** Id → what it is filed under, one entry an index in `indexes`' order (to unfile it whatever it holds now). */
  private readonly filed = new Map<string, Filed[]>();

  /** `dropped[index](key)`: told when an item leaves one of the index's keys (deleted, or refiled elsewhere). */
  constructor(
    indexes: Record<I, KeysOf<T>>,
    private readonly dropped: Partial<Record<I, (key: string) => void>> = {},
  ) {
    super();
    this.indexes = Object.entries(indexes) as [I, KeysOf<T>][];
    for (const [name] of this.indexes) this.buckets.set(name, new Map());
  }

  override set(id: string, item: T): this {
    super.set(id, item);
    this.file(id, item);
    return this;
  }

  override delete(id: string): boolean {
    const had = super.delete(id);
    if (had) this.unfile(id);
    return had;
  }

  override clear(): void {
    super.clear();
    for (const b of this.buckets.values()) b.clear();
    this.filed.clear();
  }

  /** Files the item again after an in-place change of an attribute an index reads. */
  refile(id: string): void {
    const item = super.get(id);
    if (item !== undefined) this.file(id, item);
  }

  /** The items filed under `key` in index `name`, in the order they were filed. */
  by(name: I, key: string): T[] {
    const out: T[] = [];
    for (const id of this.ids(name, key)) out.push(super.get(id)!);
    return out;
  }

  /** The first item filed under `key` (one of a unique name, say). */
  first(name: I, key: string): T | undefined {
    for (const id of this.ids(name, key)) return super.get(id);
    return undefined;
  }

  /** How many items are filed under `key`. */
  count(name: I, key: string): number {
    return this.ids(name, key).size;
  }

  /** The items filed under any of `keys`, each once. */
  byAny(name: I, keys: Iterable<string>): T[] {
    const seen = new Set<string>();
    for (const key of keys) for (const id of this.ids(name, key)) seen.add(id);
    return [...seen].map((id) => super.get(id)!);
  }

  /** The ids filed under `key` (read-only; empty when none). */
  ids(name: I, key: string): ReadonlySet<string> {
    const bucket = this.buckets.get(name);
    if (!bucket) throw new Error(`IndexedMap: no index ${name}`);
    return bucket.get(key)?.ids ?? EMPTY;
  }

  /** The indexes this map keeps. */
  indexNames(): I[] {
    return this.indexes.map(([name]) => name);
  }

  /** Ids whose filing no longer matches what they hold (an in-place change without refile): none, always. */
  stale(): string[] {
    const out: string[] = [];
    for (const [id, item] of this.entries()) {
      const filed = this.filed.get(id);
      const same = this.indexes.every(([, keysOf], n) => {
        const now = new Set(keyList(keysOf(item)));
        const then = filedList(filed?.[n]);
        return now.size === then.length && then.every((k) => now.has(k));
      });
      if (!same) out.push(id);
    }
    return out;
  }

  private file(id: string, item: T): void {
    const before = this.filed.get(id);
    const now: Filed[] = [];
    this.indexes.forEach(([name, keysOf], n) => {
      const keys = new Set(keyList(keysOf(item)));
      const old = filedList(before?.[n]);
      const buckets = this.buckets.get(name)!;
      for (const k of old) if (!keys.has(k)) this.drop(name, buckets, k, id);
      // The keys kept are the buckets' own strings (not the item's: its tags may change in place).
      const kept: string[] = [];
      for (const k of keys) {
        let bucket = buckets.get(k);
        if (!bucket) buckets.set(k, (bucket = { key: k, ids: new Set() }));
        bucket.ids.add(id);
        kept.push(bucket.key);
      }
      now.push(kept.length === 0 ? undefined : kept.length === 1 ? kept[0] : kept);
    });
    this.filed.set(id, now);
  }

  private unfile(id: string): void {
    const before = this.filed.get(id);
    if (!before) return;
    this.indexes.forEach(([name], n) => {
      const buckets = this.buckets.get(name)!;
      for (const k of filedList(before[n])) this.drop(name, buckets, k, id);
    });
    this.filed.delete(id);
  }

  private drop(name: I, buckets: Map<string, Bucket>, key: string, id: string): void {
    const bucket = buckets.get(key);
    if (!bucket) return;
    bucket.ids.delete(id);
    if (bucket.ids.size === 0) buckets.delete(key);
    this.dropped[name]?.(key);
  }
}

/** The stale entries of every IndexedMap a state object holds, as `field:id` (tests: must be none). */
export function staleEntries(state: object): string[] {
  const out: string[] = [];
  for (const [field, value] of Object.entries(state)) {
    if (value instanceof IndexedMap) for (const id of value.stale()) out.push(`${field}:${id}`);
  }
  return out;
}
