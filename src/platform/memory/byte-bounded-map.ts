/**
 * Entries up to a total size in bytes, keys included (a key can be as long as
 * a URL, and is the caller's to choose); the oldest go first when a new one
 * does not fit. `bytesOf` says what a value weighs.
 */
export class ByteBoundedMap<V> {
  private readonly entries = new Map<string, { readonly value: V; readonly bytes: number }>();
  private bytes = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly bytesOf: (value: V) => number,
  ) {}

  get(key: string): V | undefined {
    return this.entries.get(key)?.value;
  }

  set(key: string, value: V): void {
    const bytes = Buffer.byteLength(key) + this.bytesOf(value);
    this.delete(key);
    if (bytes > this.maxBytes) return;
    this.entries.set(key, { value, bytes });
    this.bytes += bytes;
    for (const oldest of this.entries.keys()) {
      if (this.bytes <= this.maxBytes) break;
      this.delete(oldest);
    }
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  get size(): number {
    return this.entries.size;
  }
}
