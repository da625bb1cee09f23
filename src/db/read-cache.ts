// A bounded read cache with a generation counter. A reader takes `generation` before reading
// the database and stores its result with it; a result read before an invalidation is dropped,
// so the cache never holds anything older than the last change it was told of. It is bypassed
// entirely while `usable()` is false (e.g. its change feed is down).

export class ReadCache<V> {
  private readonly map = new Map<string, { value: V; weight: number }>();
  private weight = 0;
  generation = 0;
  hits = 0;
  misses = 0;

  constructor(
    private readonly maxWeight: number,
    private readonly weigh: (v: V) => number,
    readonly usable: () => boolean,
  ) {}

  get(key: string): V | undefined {
    if (!this.usable()) return undefined;
    const e = this.map.get(key);
    if (!e) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.map.delete(key);
    this.map.set(key, e);
    return e.value;
  }

  /** Stores `value` read at generation `gen`, unless something changed since. */
  set(key: string, value: V, gen: number): void {
    if (gen !== this.generation || !this.usable()) return;
    const weight = this.weigh(value);
    if (weight > this.maxWeight) return;
    const old = this.map.get(key);
    if (old) this.weight -= old.weight;
    this.map.delete(key);
    this.map.set(key, { value, weight });
    this.weight += weight;
    for (const [k, e] of this.map) {
      if (this.weight <= this.maxWeight) break;
      this.map.delete(k);
      this.weight -= e.weight;
    }
  }

  invalidate(): void {
    this.generation++;
    this.map.clear();
    this.weight = 0;
  }

  get size(): number {
    return this.map.size;
  }
}
