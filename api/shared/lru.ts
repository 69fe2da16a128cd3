/** A bounded map that forgets the least recently used entry first (Map keeps insertion order). */
export class Lru<K, V> {
  readonly #entries = new Map<K, V>();

  constructor(readonly capacity: number) {}

  /** The value under `key`, marking it most recently used. */
  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  /** Stores `value` under `key` as the most recently used, dropping the least recently used past capacity. */
  set(key: K, value: V): void {
    if (this.capacity <= 0) return;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.capacity) this.#entries.delete(this.#entries.keys().next().value!);
  }

  /** Forgets every entry. */
  clear(): void {
    this.#entries.clear();
  }

  /** How many entries are held. */
  get size(): number {
    return this.#entries.size;
  }
}
