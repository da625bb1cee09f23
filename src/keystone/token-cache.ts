// A bounded map of validated tokens, least recently used first out. Keys are SHA-256 hashes
// of tokens: the token itself is never a key.

export class LruCache<V> {
  private readonly map = new Map<string, { value: V; until: number }>();

  constructor(private readonly max: number) {}

  get(key: string, now = Date.now()): V | undefined {
    const e = this.map.get(key);
    if (!e) return undefined;
    if (e.until <= now) {
      this.map.delete(key);
      return undefined;
    }
    this.map.delete(key);
    this.map.set(key, e);
    return e.value;
  }

  set(key: string, value: V, until: number): void {
    this.map.delete(key);
    this.map.set(key, { value, until });
    while (this.map.size > this.max) {
      const oldest = this.map.keys().next().value as string;
      this.map.delete(oldest);
    }
  }

  delete(key: string): void {
    this.map.delete(key);
  }

  get size(): number {
    return this.map.size;
  }

  /** The keys held, least recently used first (expired entries may still be listed). */
  keys(): string[] {
    return [...this.map.keys()];
  }
}
