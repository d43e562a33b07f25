/**
 * A Map that holds at most `maxEntries`: adding a new key when full first drops the oldest
 * (insertion order). Caches and throttles keyed by client input use it, so a flood of distinct
 * keys cannot grow memory without bound.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  readonly #maxEntries: number;

  constructor(maxEntries: number) {
    super();
    this.#maxEntries = maxEntries;
  }

  override set(key: K, value: V): this {
    if (!this.has(key) && this.size >= this.#maxEntries) {
      const oldest = this.keys().next().value;
      if (oldest !== undefined) this.delete(oldest);
    }
    return super.set(key, value);
  }
}
