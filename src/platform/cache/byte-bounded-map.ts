/**
 * Entries up to a total size in bytes, keys included (a key can be as long as
 * a URL, and is the caller's to choose); the least recently used go first
 * when a new one does not fit, and `evicted` hears of each entry that leaves.
 */
export class ByteBoundedMap<V> {
  private readonly entries = new Map<string, { readonly value: V; readonly bytes: number }>();
  private bytes = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly evicted?: (key: string, value: V) => void,
  ) {}

  /** The value under `key`, which becomes the most recently used: what is read often stays, whenever it was stored. */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Keeps `value` (weighing `valueBytes`) under `key`; false when it alone exceeds the bound, and is not stored. */
  set(key: string, value: V, valueBytes: number): boolean {
    const bytes = Buffer.byteLength(key) + valueBytes;
    this.delete(key);
    if (bytes > this.maxBytes) return false;
    this.entries.set(key, { value, bytes });
    this.bytes += bytes;
    for (const oldest of this.entries.keys()) {
      if (this.bytes <= this.maxBytes) break;
      this.delete(oldest);
    }
    return true;
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
    this.evicted?.(key, entry.value);
  }

  clear(): void {
    if (this.evicted !== undefined) for (const [key, { value }] of this.entries) this.evicted(key, value);
    this.entries.clear();
    this.bytes = 0;
  }

  get size(): number {
    return this.entries.size;
  }
}
